import ArgumentParser
@testable import BradOSCore
import Testing

@Suite("Did you mean: the nearest command name")
struct SuggestionTests {
    struct Root: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "brados", subcommands: [Group.self, Other.self])
        struct Group: ParsableCommand {
            static let configuration = CommandConfiguration(commandName: "conversations", subcommands: [Show.self, Delete.self])
        }
        struct Other: ParsableCommand { static let configuration = CommandConfiguration(commandName: "config") }
        struct Show: ParsableCommand { static let configuration = CommandConfiguration(commandName: "show", aliases: ["view"]) }
        struct Delete: ParsableCommand { static let configuration = CommandConfiguration(commandName: "delete") }
    }

    @Test("one edit for short words, two for longer, a swap counts one; ties and far words get nothing")
    func nearest() {
        let names = ["mealplan", "visits", "library", "coach", "plan", "cache", "config"]
        #expect(Suggestion.nearest("mealpln", among: names) == "mealplan")
        #expect(Suggestion.nearest("libary", among: names) == "library")
        #expect(Suggestion.nearest("vistis", among: names) == "visits", "a swap of two neighbours is one edit")
        #expect(Suggestion.nearest("PLAN", among: names) == "plan")
        #expect(Suggestion.nearest("cahce", among: names) == "cache")
        #expect(Suggestion.nearest("xyzzy", among: names) == nil)
        #expect(Suggestion.nearest("c", among: names) == nil, "one letter names nothing")
        #expect(Suggestion.nearest("coa", among: names) == "coach", "the only name it begins")
        #expect(Suggestion.nearest("cot", among: ["cat", "cut"]) == nil, "two names one edit away: no guess")
        #expect(Suggestion.distance("ab", "ba") == 1)
        #expect(Suggestion.distance("kitten", "sitting") == 3)
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
