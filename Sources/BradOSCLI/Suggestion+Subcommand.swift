import ArgumentParser
import BradOSTerminal

extension Suggestion {
    /// For a usage error on `arguments`: the subcommand the first unknown word after a command
    /// group was probably meant to be (`brados mealplan shw` → `brados mealplan show`), as
    /// the full command line to type; `nil` when the words name no group, or nothing is near.
    public static func subcommand(in arguments: [String], root: any ParsableCommand.Type) -> String? {
        var subcommands: [any ParsableCommand.Type] = root.configuration.subcommands
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument.hasPrefix("-") { continue }
            if subcommands.isEmpty { return nil }
            var names: [String] = []
            var matched: (any ParsableCommand.Type)?
            for candidate in subcommands {
                let configuration = candidate.configuration
                let name = configuration.commandName ?? candidate._commandName
                names.append(name)
                if name == argument || configuration.aliases.contains(argument) { matched = candidate }
            }
            if let matched {
                subcommands = matched.configuration.subcommands
                continue
            }
            guard let name = nearest(argument, among: names) else { return nil }
            var fixed = arguments
            fixed[index - 1] = name
            return (["brados"] + fixed).joined(separator: " ")
        }
        return nil
    }
}
