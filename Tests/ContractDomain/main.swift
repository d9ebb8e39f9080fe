import BradOSCLI

// `brados-contract`: brados with one more domain, registered in one line. Built for the
// plugin-contract tests only; never installed.
BradosMain.run(plugins: Registry.plugins + [PlacesPlugin()])
