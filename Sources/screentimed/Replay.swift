import ArgumentParser
import Foundation
import ScreenTimeCore
import ScreenTimePolicy

/// `screentimed replay --policy P EVENTS.jsonl`: the engine, offline, over an event log.
struct Replay: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Replay an event log through the engine and print the result as JSON.",
        discussion: "Exit status 2 and 'file:line: reason' on stderr when the policy or an event line is malformed.")

    @Option(name: .long, help: "The policy file (TOML) to judge the events by.")
    var policy: String

    @Argument(help: "The event log: one JSON event per line ('-' for standard input).")
    var events: String

    @Flag(name: .long, help: "Indent the JSON result for reading.")
    var pretty = false

    func run() throws {
        let loaded: Policy
        do throws(PolicyError) { loaded = try PolicyLoader.load(path: policy) } catch {
            FileHandle.standardError.write(Data((error.description + "\n").utf8))
            throw ExitCode(2)
        }
        let input = events == "-" ? FileHandle.standardInput : FileHandle(forReadingAtPath: events)
        guard let input else {
            FileHandle.standardError.write(Data("\(events): cannot be read (no such file, or no permission)\n".utf8))
            throw ExitCode(2)
        }
        let data = input.readDataToEndOfFile()
        let replayed = data.withUnsafeBytes { ReplayResult.replay(lines: $0.bindMemory(to: UInt8.self), policy: loaded) }
        let result: ReplayResult, engine: Engine
        switch replayed {
        case .success(let done): (result, engine) = done
        case .failure(let failure):
            FileHandle.standardError.write(Data("\(events):\(failure.line): \(failure.reason)\n".utf8))
            throw ExitCode(2)
        }
        let text = result.json(offset: engine.utcOffset(at:))
        print(pretty ? JSONWriter.indented(text) : text)
    }
}
