import ArgumentParser

// Flags a command runs with but ArgumentParser's scripts do not offer there: a group that
// runs its default subcommand (`brados visits` is `brados visits list`) takes that
// subcommand's flags, and the root takes the global ones before any command
// (`brados --profile <TAB>`: the hoisting in ``GlobalOptions/hoistLeadingGlobals(_:)`` moves them).
// Each script is changed so the receiver offers the donor's flags and completes their values
// the donor's way (its custom completions run as the donor's, with its command line).
extension CompletionScript {
    /// A command that offers another's flags: `receiver` (a path under the root, empty for the
    /// root) takes `donor`'s.
    struct Borrowing: Equatable {
        var receiver: [String]
        var donor: [String]
    }

    /// The command whose flags are exactly the global ones, which the root offers.
    static let globalsDonor = ["config", "list"]

    /// Every group with a default subcommand takes that subcommand's flags; the root, the global ones.
    static func borrowings(_ root: any ParsableCommand.Type) -> [Borrowing] {
        var found = [Borrowing(receiver: [], donor: globalsDonor)]
        func walk(_ command: any ParsableCommand.Type, path: [String]) {
            let configuration = command.configuration
            if let fallback = configuration.defaultSubcommand {
                found.append(Borrowing(receiver: path, donor: path + [fallback._commandName]))
            }
            for sub in configuration.subcommands where sub.configuration.shouldDisplay {
                walk(sub, path: path + [sub._commandName])
            }
        }
        for sub in root.configuration.subcommands where sub.configuration.shouldDisplay { walk(sub, path: [sub._commandName]) }
        return found
    }

    /// A shell function's lines, from `name() {` to the `}` that closes it.
    static func function(_ name: String, in lines: [Substring]) -> Range<Int>? {
        guard let start = lines.firstIndex(of: Substring("\(name)() {")) else { return nil }
        guard let end = lines[start...].firstIndex(of: "}") else { return nil }
        return start..<(end + 1)
    }

    static func functionName(_ command: String, _ path: [String]) -> String { "_" + ([command] + path).joined(separator: "_") }

    /// For each borrowing whose two shell functions the script has (bash, zsh): `change` gets
    /// the donor's lines and rewrites the receiver's.
    static func rewriteReceivers(_ script: String, commandName name: String, _ borrowings: [Borrowing],
                                 _ change: (_ donor: [Substring], _ receiver: inout [Substring]) -> Void) -> String {
        var lines = script.split(separator: "\n", omittingEmptySubsequences: false)
        for borrowing in borrowings {
            guard let donor = function(functionName(name, borrowing.donor), in: lines),
                  let receiver = function(functionName(name, borrowing.receiver), in: lines) else { continue }
            var body = Array(lines[receiver])
            change(Array(lines[donor]), &body)
            lines.replaceSubrange(receiver, with: body)
        }
        return lines.joined(separator: "\n")
    }

    /// bash: the receiver's flag and option arrays take the donor's, and the donor's
    /// completions of option values run first in the receiver.
    static func borrowBash(_ script: String, commandName name: String, _ borrowings: [Borrowing]) -> String {
        rewriteReceivers(script, commandName: name, borrowings) { donorLines, body in
            for array in ["repeating_flags", "non_repeating_flags", "repeating_options", "non_repeating_options"] {
                guard let borrowed = donorLines.first(where: { $0.trimmingCharacters(in: .whitespaces).hasPrefix("\(array)=(") }).map(words),
                      let index = body.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces).hasPrefix("\(array)=(") || $0.contains(" \(array)=(") })
                else { continue }
                let own = words(body[index])
                let merged = own + borrowed.filter { !own.contains($0) }
                let prefix = String(body[index].prefix { $0 != "(" })
                body[index] = Substring(prefix + "(" + merged.joined(separator: " ") + ")")
            }
            // The donor's `case "${prev}" in … esac` (option values), before the receiver's subcommands.
            if let start = donorLines.firstIndex(where: { $0.hasSuffix("# Offer option value completions") }),
               let end = donorLines[start...].firstIndex(of: "    esac"),
               let anchor = body.firstIndex(where: { $0.hasSuffix("# Offer subcommand / subcommand argument completions") }) {
                body.insert(contentsOf: Array(donorLines[start...end]) + [Substring("")], at: anchor)
            }
        }
    }

    /// The words of `name=(a b c)`.
    private static func words(_ line: Substring) -> [String] {
        guard let open = line.firstIndex(of: "("), let close = line.lastIndex(of: ")") else { return [] }
        return line[line.index(after: open)..<close].split(separator: " ").map(String.init)
    }

    /// zsh: the receiver's `_arguments` specs take the donor's options (and the value lists they name).
    static func borrowZsh(_ script: String, commandName name: String, _ borrowings: [Borrowing]) -> String {
        rewriteReceivers(script, commandName: name, borrowings) { donorLines, body in
            guard let donorSpecs = donorLines.firstIndex(of: "    local -ar arg_specs=("),
                  let donorEnd = donorLines[donorSpecs...].firstIndex(of: "    )"),
                  let receiverSpecs = body.firstIndex(of: "    local -ar arg_specs=(") else { return }
            let own = Set(body)
            // Options only: not the donor's positionals (`':id:…'`), nor what the receiver has (--version, --help).
            let options = donorLines[(donorSpecs + 1)..<donorEnd].filter { line in
                let spec = line.trimmingCharacters(in: .whitespaces)
                return !own.contains(line) && (spec.hasPrefix("'--") || spec.hasPrefix("'(-")) && !spec.hasPrefix("'(-)")
            }
            // The arrays of fixed values the options complete from (`___credentials_store`).
            let values = donorLines[..<donorSpecs].filter { $0.hasPrefix("    local -ar ___") && !own.contains($0) }
            body.insert(contentsOf: options, at: receiverSpecs + 1)
            body.insert(contentsOf: values, at: receiverSpecs)
        }
    }

    /// fish: the receiver's token parsing knows the donor's options (so their values are not
    /// taken for a subcommand), and every donor flag's `complete` line is offered at the receiver too.
    static func borrowFish(_ script: String, commandName name: String, _ borrowings: [Borrowing]) -> String {
        var lines = script.split(separator: "\n", omittingEmptySubsequences: false)
        // Where each command's `__NAME_parse_subcommand` line is, by path (its `case` line's nesting).
        var parseLines: [[String]: Int] = [:]
        var stack: [String] = []
        for (index, line) in lines.enumerated() {
            let indent = line.prefix { $0 == " " }.count
            let text = line.dropFirst(indent)
            if text.hasPrefix("case '"), text.hasSuffix("'") {
                let depth = (indent - 4) / 4
                stack = Array(stack.prefix(depth)) + [String(text.dropFirst(6).dropLast())]
            } else if text.hasPrefix("__\(name)_parse_subcommand "), !stack.isEmpty {
                parseLines[Array(stack.dropFirst())] = index
            }
        }
        func specs(_ line: Substring) -> [String] { line.split(separator: " ").dropFirst().filter { $0.hasPrefix("'") }.map(String.init) }
        var added: [Substring] = []
        for borrowing in borrowings {
            guard let donorLine = parseLines[borrowing.donor], let receiverLine = parseLines[borrowing.receiver] else { continue }
            let own = specs(lines[receiverLine])
            let borrowed = specs(lines[donorLine]).filter { !own.contains($0) }
            lines[receiverLine] += Substring(borrowed.isEmpty ? "" : " " + borrowed.joined(separator: " "))
            let donorPath = ([name] + borrowing.donor).joined(separator: " ")
            let receiverPath = ([name] + borrowing.receiver).joined(separator: " ")
            for line in lines where line.hasPrefix("complete -c '\(name)' -n '__\(name)_should_offer_completions_for_flags_or_options \"\(donorPath)\"") {
                if line.contains(" -l 'help'") || line.contains(" -l 'version'") { continue }
                added.append(Substring(line.replacingOccurrences(of: "\"\(donorPath)\"", with: "\"\(receiverPath)\"")))
            }
        }
        if lines.last == "" { lines.insert(contentsOf: added, at: lines.count - 1) } else { lines += added }
        return lines.joined(separator: "\n")
    }
}
