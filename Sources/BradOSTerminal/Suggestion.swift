/// "Did you mean …?" for a mistyped command or subcommand, as git and gh answer one: the
/// nearest name by edit distance (a swap of two neighbours counts one), if it is near enough.
public enum Suggestion {
    /// The name in `names` nearest to `word`: at most one edit for a word of up to four
    /// letters, two for longer ones (`mealpln` → `mealplan`, `shw` → `show`); a name `word`
    /// begins (`conv` → `conversations`) when only one does. `nil` when none is near.
    public static func nearest(_ word: String, among names: [String]) -> String? {
        let word = word.lowercased()
        guard !word.isEmpty else { return nil }
        let limit = word.count <= 4 ? 1 : 2
        var best: String?
        var bestDistance = limit + 1
        var tied = false
        for name in names {
            let d = distance(word, name.lowercased())
            if d < bestDistance {
                best = name
                bestDistance = d
                tied = false
            } else if d == bestDistance {
                tied = true
            }
        }
        if let best, !tied { return best }
        let prefixed = names.filter { $0.lowercased().hasPrefix(word) }
        return word.count >= 3 && prefixed.count == 1 ? prefixed[0] : nil
    }

    /// Optimal string alignment distance: insertions, deletions, substitutions and swaps of
    /// two neighbours each cost one.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { current[j] = min(current[j], previous2[j - 2] + 1) }
            }
            let oldest = previous2
            previous2 = previous
            previous = current
            current = oldest
        }
        return previous[b.count]
    }
}
