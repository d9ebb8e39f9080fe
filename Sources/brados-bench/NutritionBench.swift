import ArgumentParser
import Foundation
import Nutrition

/// `brados-bench plan-cache-read DIR RUNS` (bench/plan_flow.py): times a disk-cache hit of
/// the nutrition plan as `plan show` makes it: a new cache (an empty memory tier, as a new
/// process has) reading and decoding `DIR/plan.json`. Prints the median, min and max.
struct NutritionCacheRead: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan-cache-read", abstract: "Time RUNS disk-cache hits of the plan in DIR (a profile's plan cache folder).")
    @Argument(help: "The plan cache folder (holding plan.json).") var directory: String
    @Argument(help: "How many reads.") var runs = 200

    func run() throws {
        let folder = URL(fileURLWithPath: directory, isDirectory: true)
        let clock = ContinuousClock()
        var samples: [Double] = []
        var found = 0
        for _ in 0..<max(runs, 1) {
            var hit = false
            samples.append(clock.measure { hit = NutritionCache(directory: folder).load() != nil }.seconds)
            if hit { found += 1 }
        }
        guard found == samples.count else { throw ValidationError("no plan cached in \(directory)") }
        samples.sort()
        print(#"{"runs":\#(samples.count),"medianSeconds":\#(samples[samples.count / 2]),"minSeconds":\#(samples[0]),"maxSeconds":\#(samples[samples.count - 1])}"#)
    }
}
