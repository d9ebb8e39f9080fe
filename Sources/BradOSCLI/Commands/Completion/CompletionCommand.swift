import ArgumentParser
import BradOSCore
import BradOSTerminal

/// `brados completion bash|zsh|fish`: the shell completion script, as `gh completion` prints one.
public struct CompletionCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "completion",
        abstract: "Print the shell completion script for bash, zsh or fish.",
        discussion: """
        The packages install these already; from a tarball or a build, put the script where \
        your shell looks for completions, then start a new shell. Commands, flags, profile \
        names, ids from the caches and settings complete; zsh and fish show conversations \
        with their titles.
        Examples:
          brados completion bash > ~/.local/share/bash-completion/completions/brados
          brados completion zsh > "${fpath[1]}/_brados"
          brados completion fish > ~/.config/fish/completions/brados.fish
        """)

    @Argument(help: ArgumentHelp("bash, zsh or fish (default: the one $SHELL names).", valueName: "shell"),
              completion: .list(CompletionShell.allCases.map(\.rawValue)))
    var shell: String?

    public init() {}

    /// Checks the shell: one of the three, or one `$SHELL` names.
    /// - Throws: `ValidationError` for another shell, or none named and `$SHELL` naming none of them.
    public func validate() throws {
        if let shell, CompletionShell(rawValue: shell) == nil {
            throw ValidationError("No completion script for '\(shell)': bash, zsh or fish.")
        }
        if shell == nil, CompletionShell.autodetected() == nil {
            throw ValidationError("Name the shell: brados completion bash|zsh|fish ($SHELL names none of them).")
        }
    }

    /// Prints the script on stdout.
    public func run() throws {
        let name = shell ?? CompletionShell.autodetected()?.rawValue ?? "bash"
        guard let script = CompletionScript.generate(Brados.self, shell: name) else { throw ValidationError("No completion script for '\(name)'.") }
        StandardIO().write(script.hasSuffix("\n") ? script : script + "\n")
    }
}
