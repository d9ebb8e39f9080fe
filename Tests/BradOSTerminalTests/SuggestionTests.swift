@testable import BradOSTerminal
import Testing

@Suite("Did you mean: the nearest command name")
struct SuggestionTests {
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
}
