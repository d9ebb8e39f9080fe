import ArgumentParser

/// The shell completion scripts `brados --generate-completion-script SHELL` prints:
/// ArgumentParser's, with one change for bash.
///
/// ArgumentParser's bash script passes the values a custom completion prints (ids read from
/// the local caches) to `compgen -W "$(…)"`, and `compgen -W` expands `$(…)`, backticks and
/// variables in its word list: a cached id of `$(touch${IFS}/tmp/x)` would run on TAB. Here
/// every such call goes through `__NAME_add_custom_completions`, which reads the values
/// line by line, keeps those that start with the word being completed (a literal prefix),
/// and inserts them `printf %q`-quoted. No value from a cache is ever evaluated. zsh
/// (`_describe`, whose values are quoted on insertion; colons escaped here) and fish
/// (`complete -a` output is not re-expanded) do not evaluate them either; the tests plant
/// hostile values for all three (CompletionsEndToEndTests, reliability/completion_injection.py).
public enum CompletionScript {
    /// The script for `shell` (`bash`, `zsh`, `fish`), or `nil` for another shell.
    public static func generate(_ root: any ParsableCommand.Type, shell: String) -> String? {
        guard let kind = CompletionShell(rawValue: shell) else { return nil }
        let name = root._commandName
        let script = root.completionScript(for: kind)
        let borrowings = borrowings(root)
        switch shell {
        case "bash":
            let hardened = hardenBash(borrowBash(script, commandName: name, borrowings), commandName: name)
            // A line the rewrite did not recognise would still evaluate cached text: never print that.
            precondition(!hardened.contains("-W \"$(__\(name)_custom_complete"), "an unhardened custom completion is left in the bash script")
            return hardened
        case "zsh": return hardenZsh(borrowZsh(script, commandName: name, borrowings), commandName: name)
        default: return borrowFish(script, commandName: name, borrowings)
        }
    }

    /// Replaces every `compgen -W "$(custom completion)"` with the quoting helper.
    static func hardenBash(_ script: String, commandName name: String) -> String {
        let call = "__\(name)_add_completions -W \"$(__\(name)_custom_complete "
        let helper = """
        # Added by brados: values a custom completion prints (ids from the local caches) are
        # data, never code. `compgen -W` would expand $(…), backticks and variables in them,
        # so each line is matched as a literal prefix of the current word and inserted quoted.
        __\(name)_add_custom_completions() {
            local completion quoted
            while IFS='' read -r completion; do
                [[ -n "${completion}" && "${completion}" == "${cur}"* ]] || continue
                printf -v quoted '%q' "${completion}"
                COMPREPLY+=("${quoted}")
            done < <(__\(name)_custom_complete "${@}")
        }


        """
        var lines: [Substring] = []
        var insertedHelper = false
        for line in script.split(separator: "\n", omittingEmptySubsequences: false) {
            if !insertedHelper, line == "__\(name)_custom_complete() {" {
                lines.append(contentsOf: helper.split(separator: "\n", omittingEmptySubsequences: false).dropLast())
                insertedHelper = true
            }
            let indent = line.prefix { $0 == " " }
            let body = line.dropFirst(indent.count)
            if body.hasPrefix(call), body.hasSuffix(")\"") {
                let arguments = body.dropFirst(call.count).dropLast(2)
                lines.append(indent + "__\(name)_add_custom_completions " + arguments)
            } else {
                lines.append(line)
            }
        }
        return lines.joined(separator: "\n")
    }

    /// Escapes `:` in custom values, which `_describe` would otherwise read as the start of
    /// a description, then turns brados's own separator (``CompletionValues/described(_:)``,
    /// U+001F) into the `:` that starts one.
    static func hardenZsh(_ script: String, commandName name: String) -> String {
        script.replacingOccurrences(
            of: "        __\(name)_complete \"${completions[@]:0:-1}\"",
            with: "        __\(name)_complete \"${(@)${(@)${(@)completions[@]:0:-1}//:/\\\\:}//$'\\x1f'/:}\"")
    }
}
