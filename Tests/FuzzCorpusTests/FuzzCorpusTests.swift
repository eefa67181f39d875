import Foundation
import ScreenTimeFuzz
import Testing

/// Every input kept in the repository for a fuzz target (Fuzz/TARGET/seeds: written by hand;
/// Fuzz/TARGET/corpus: what libFuzzer found that reaches new code; Fuzz/TARGET/regressions: each
/// input that ever crashed a target or broke one of its invariants), run through the target as
/// `make fuzz` runs it, without the fuzzer.
@Suite("Fuzz corpus and regressions")
struct FuzzCorpusTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func inputs(_ target: String, _ kind: String) -> [URL] {
        let dir = root.appendingPathComponent("Fuzz/\(target)/\(kind)")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        return names.filter { !$0.hasPrefix(".") && $0 != "README.md" }.sorted().map { dir.appendingPathComponent($0) }
    }

    @Test("every saved input passes its target", arguments: FuzzTargets.all.map(\.name))
    func savedInputs(_ target: String) throws {
        let run = try #require(FuzzTargets.named(target))
        let seeds = Self.inputs(target, "seeds"), corpus = Self.inputs(target, "corpus")
        // A target without seeds and a corpus would make `make fuzz` start from nothing, and this test vacuous.
        #expect(seeds.count >= 3, "Fuzz/\(target)/seeds has \(seeds.count) inputs")
        #expect(corpus.count >= 20, "Fuzz/\(target)/corpus has \(corpus.count) inputs")
        for file in seeds + corpus + Self.inputs(target, "regressions") {
            let data = try Data(contentsOf: file)
            #expect(run(Array(data)) == nil, "\(file.path)")
        }
    }
}
