import BradOSCLI

// The brados executable: the registry's domains over the shared core.
BradosMain.run(plugins: Registry.plugins)
