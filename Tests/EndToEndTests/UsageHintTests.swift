import Foundation
import TestSupport
import Testing

/// stctl's words for the mistakes of its command line (issue 35): the real binary, as a child or a
/// parent types it.
@Suite("stctl usage hints, end to end", .ownThread)
struct UsageHintTests {
    static func run(_ args: [String]) throws -> ReplayBinaryTests.Run {
        try ReplayBinaryTests.runBinary(ControlSocketTests.stctl, args)
    }

    /// Usage mistakes end as ArgumentParser's do: exit status 64 (EX_USAGE), nothing on stdout.
    static func refused(_ args: [String], _ lines: [String]) throws {
        let r = try run(args)
        #expect(r.status == 64, "\(args): \(r.stderr)")
        #expect(r.stdout == "")
        #expect(r.stderr == lines.map { $0 + "\n" }.joined(), "\(args)")
    }

    @Test("a mistyped command: did you mean the one it is close to, with the rest of the line kept")
    func didYouMean() throws {
        try Self.refused(["stauts"], [
            "Error: stctl has no command \"stauts\".",
            "Did you mean: stctl status",
            "To see every command: stctl --help",
        ])
        try Self.refused(["histroy", "--json"], [
            "Error: stctl has no command \"histroy\".",
            "Did you mean: stctl history --json",
            "To see every command: stctl --help",
        ])
        // The start of a command is enough when only one command starts so.
        try Self.refused(["req"], [
            "Error: stctl has no command \"req\".",
            "Did you mean: stctl requests",
            "To see every command: stctl --help",
        ])
        // Below the first word too.
        try Self.refused(["policy", "chek", "my policy.toml"], [
            "Error: stctl policy has no command \"chek\".",
            "Did you mean: stctl policy check \"my policy.toml\"",
            "To see every command: stctl policy --help",
        ])
        // Nothing close: no guess.
        try Self.refused(["xyzzy"], [
            "Error: stctl has no command \"xyzzy\".",
            "To see every command: stctl --help",
        ])
    }

    @Test("words after ask N (and the other commands with a reason) are told to go after --reason, in quotes")
    func reasonWithoutOption() throws {
        try Self.refused(["ask", "20", "because", "I", "finished"], [
            "Error: \"because I finished\" is not understood.",
            "To say why, write --reason and put the words in quotes:",
            "  stctl ask 20 --reason \"because I finished\"",
        ])
        try Self.refused(["ask", "20", "--reason", "because", "I", "finished"], [
            "Error: \"I finished\" is not understood after the reason.",
            "A reason of more than one word goes in quotes:",
            "  stctl ask 20 --reason \"because I finished\"",
        ])
        try Self.refused(["adjust", "-5", "you", "hit", "your", "sister"], [
            "Error: \"you hit your sister\" is not understood.",
            "To say why, write --reason and put the words in quotes:",
            "  stctl adjust -5 --reason \"you hit your sister\"",
        ])
        try Self.refused(["deny", "3", "dinner", "is", "ready", "--user", "emma"], [
            "Error: \"dinner is ready\" is not understood.",
            "To say why, write --reason and put the words in quotes:",
            "  stctl deny 3 --user emma --reason \"dinner is ready\"",
        ])
        try Self.refused(["chore", "reject", "dishes", "the", "bowl's", "still", "dirty"], [
            "Error: \"the bowl's still dirty\" is not understood.",
            "To say why, write --reason and put the words in quotes:",
            "  stctl chore reject dishes --reason \"the bowl's still dirty\"",
        ])
        try Self.refused(["approve", "3", "well", "done!"], [
            "Error: \"well done!\" is not understood.",
            "To say why, write --reason and put the words in quotes:",
            "  stctl approve 3 --reason 'well done!'",
        ])
    }

    @Test("the command a hint offers is one stctl takes: run by a shell, it goes on to ask the daemon")
    func hintedCommandRuns() throws {
        let socket = "/nonexistent/screentime-hint-\(UUID().uuidString).sock"
        let r = try Self.run(["ask", "20", "because", "I'm", "done", "--socket", socket])
        #expect(r.status == 64)
        let hinted = try #require(r.stderr.split(separator: "\n").last.map(String.init))
        #expect(hinted == "  stctl ask 20 --socket \(socket) --reason \"because I'm done\"")
        let again = try ReplayBinaryTests.runBinary("/bin/sh", ["-c", hinted.replacingOccurrences(of: "  stctl ", with: "'\(ControlSocketTests.stctl)' ")])
        // Past the command line: no daemon listens there (exit status 3), and no usage error.
        #expect(again.status == 3, "\(again.stderr)")
        #expect(again.stderr.hasPrefix("stctl: \(socket): "), "\(again.stderr)")
    }

    @Test("a command line that parses is not touched; a mistake the hints do not know gets ArgumentParser's words")
    func othersUntouched() throws {
        let socket = "/nonexistent/screentime-hint-\(UUID().uuidString).sock"
        // A good line goes to the daemon (none listens: exit status 3), whatever its words.
        #expect(try Self.run(["ask", "20", "--reason", "because I finished", "--socket", socket]).status == 3)
        #expect(try Self.run(["deny", "3", "--reason", "not today", "--socket", socket]).status == 3)
        let help = try Self.run(["--help"])
        #expect(help.status == 0 && help.stdout.contains("SUBCOMMANDS:"))
        // ask needs its minutes as a number: ArgumentParser's own message says so.
        let words = try Self.run(["ask", "twenty", "minutes"])
        #expect(words.status == 64)
        #expect(words.stderr.hasPrefix("Error: "), "\(words.stderr)")
        #expect(!words.stderr.contains("--reason \""), "\(words.stderr)")
    }
}
