import ArgumentParser
@testable import BradOSCLI
import BradOSTerminal
import Testing

@Suite("Did you mean: the subcommand of a usage error")
struct SuggestionSubcommandTests {
    struct Root: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "brados", subcommands: [Group.self, Other.self])
        struct Group: ParsableCommand {
            static let configuration = CommandConfiguration(commandName: "conversations", subcommands: [Show.self, Delete.self])
        }
        struct Other: ParsableCommand { static let configuration = CommandConfiguration(commandName: "config") }
        struct Show: ParsableCommand { static let configuration = CommandConfiguration(commandName: "show", aliases: ["view"]) }
        struct Delete: ParsableCommand { static let configuration = CommandConfiguration(commandName: "delete") }
    }

    @Test("the subcommand the first unknown word after a group was meant to be, as the line to type")
    func subcommand() {
        #expect(Suggestion.subcommand(in: ["conversations", "shw", "42", "--json"], root: Root.self) == "brados conversations show 42 --json")
        #expect(Suggestion.subcommand(in: ["--offline", "conversatons", "delete"], root: Root.self) == "brados --offline conversations delete",
                "the words typed are kept, only the wrong one changes")
        #expect(Suggestion.subcommand(in: ["conversations", "view", "oops"], root: Root.self) == nil, "a leaf takes arguments; nothing to guess")
        #expect(Suggestion.subcommand(in: ["conversations", "qqqqqq"], root: Root.self) == nil)
    }
}
