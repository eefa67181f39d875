import ArgumentParser
import ControlProtocol
import FoundationEssentials
import Glibc
import ScreenTimeCore
import ScreenTimeLinux
import ScreenTimeWords

/// `--socket` and `--json`, shared by every command that talks to the daemon.
struct ClientOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(tr("The daemon's control socket (default: $XDG_RUNTIME_DIR/screentime/control.sock, else the system daemon's /run/screentime/control.sock).")))
    var socket: String?

    @Option(name: .long, help: ArgumentHelp(tr("System mode: the child to ask about or act on (parents; a child may name only themselves).")))
    var user: String?

    @Flag(name: .long, help: ArgumentHelp(tr("Print the daemon's reply as JSON.")))
    var json = false

    var daemon: DaemonClient { DaemonClient(socket: socket, user: user, json: json) }
    var socketPath: String { daemon.socketPath }
    func send(_ request: ControlRequest) throws -> ControlReply { try daemon.send(request) }
    func finish(_ reply: ControlReply, human: (ControlReply) -> String) throws { try daemon.finish(reply, human: human) }
}

/// The daemon, asked through its control socket: what `ClientOptions` say, as a plain value
/// (`stctl status`'s own argument reading makes one without ArgumentParser).
struct DaemonClient {
    var socket: String?
    var user: String?
    var json = false

    var socketPath: String { socket ?? ControlProtocol.defaultSocketPath }

    /// Sends one request and returns the reply; says clearly when the daemon cannot be reached.
    /// A request with an id (a parent's redeem or adjust) whose answer was lost is sent once more,
    /// with the same id: the daemon carries it out once, and answers the second time what it
    /// answered the first.
    func send(_ request: ControlRequest) throws -> ControlReply {
        var request = request
        request.user = user ?? request.user
        request.language = tr.language    // the policy's problems, when the daemon words them

        do { return try sendOnce(request) } catch let lost as LostAnswer {
            guard request.id != nil else { throw Failure(lost.description, code: 3) }
            // Once more, the same request with the same id; a daemon that is starting again (after
            // a crash) is given 3 s to listen.
            for _ in 0..<6 {
                usleep(500_000)
                do { return try sendOnce(request) } catch is NotConnected { continue } catch let again as LostAnswer {
                    throw Failure(tr("{problem} (sent twice with one request id: carried out at most once; stctl history tells whether it was)", ["problem": again.description]), code: 3)
                }
            }
            throw Failure(tr("{problem}, and it did not listen again within 3 s (the request was carried out at most once; stctl history tells whether it was)", ["problem": lost.description]), code: 3)
        } catch let e as NotConnected {
            throw Failure(e.description, code: 3)
        }
    }

    /// The connection was lost before the answer came.
    private struct LostAnswer: Error { var description: String }
    /// No daemon listens (or the socket may not be used).
    private struct NotConnected: Error { var description: String }

    private func sendOnce(_ request: ControlRequest) throws -> ControlReply {
        let connection: UnixConnection
        do { connection = try UnixConnection.connect(path: socketPath) } catch {
            // ScreenTimeLinux's English (SocketError: "PATH: screentimed is not running …").
            throw NotConnected(description: "stctl: \(error.description)")
        }
        connection.setTimeout(seconds: ControlProtocol.answerWithinSeconds)
        let socket = ["socket": socketPath]
        guard connection.write(request.line) else { throw LostAnswer(description: "stctl: " + tr("{socket}: the daemon closed the connection", socket)) }
        var reader = FrameReader(maxFrame: 1 << 30)     // a reply may be long (an export)
        while true {
            guard let bytes = connection.read() else { throw LostAnswer(description: "stctl: " + tr("{socket}: no answer from the daemon", socket)) }
            if let line = reader.append(bytes).first {
                let reply: ControlReply
                do { reply = try ControlReply.read(line: line) } catch {
                    throw Failure("stctl: " + tr("{socket}: the daemon's answer is not understood (is a screentimed of another version listening?)", socket), code: 3)
                }
                guard reply.v == ControlProtocol.version else {
                    throw Failure("stctl: " + tr("{socket}: the daemon speaks protocol version {daemon}, this stctl version {stctl}; install stctl and screentimed of one release",
                                                 ["socket": socketPath, "daemon": "\(reply.v)", "stctl": "\(ControlProtocol.version)"]), code: 3)
                }
                return reply
            }
            if reader.overflowed { throw Failure("stctl: " + tr("{socket}: the daemon's answer is too long", socket), code: 3) }
        }
    }

    /// Prints the reply as JSON when asked; turns a refusal into exit status 1 with its reason.
    func finish(_ reply: ControlReply, human: (ControlReply) -> String) throws {
        if json {
            print(String(decoding: ControlProtocol.encode(reply).dropLast(), as: UTF8.self))
        }
        guard reply.ok else {
            if !json { StandardError.write("stctl: \(reply.refusalWords(tr))\n") }
            throw ExitCode(1)
        }
        if !json {
            let text = human(reply)
            if !text.isEmpty { print(text) }
        }
    }
}

/// How a parent who is not root, nor in `[parents] users`, proves it: the parent passphrase,
/// typed without echo when the daemon asks for a parent, or read from standard input.
struct ParentOptions: ParsableArguments {
    @Flag(name: .long, help: ArgumentHelp(tr("Read the parent passphrase from the first line of standard input (for scripts).")))
    var passphraseStdin = false

    /// Each parent command gets its own request id, kept when it is sent again (with the
    /// passphrase, or after a lost answer): the daemon carries it out once.
    func send(_ request: ControlRequest, with client: ClientOptions) throws -> ControlReply {
        var request = request
        return try send(&request, with: client)
    }

    /// `send`, keeping in `request` the id and the passphrase it was sent with.
    func send(_ request: inout ControlRequest, with client: ClientOptions) throws -> ControlReply {
        request.id = request.id ?? UUID().uuidString
        if request.passphrase != nil { return try client.send(request) }
        if passphraseStdin {
            guard let line = readLine(strippingNewline: true), !line.isEmpty else {
                throw Failure("stctl: " + tr("--passphrase-stdin: no passphrase on standard input"), code: 2)
            }
            request.passphrase = line
            return try client.send(request)
        }
        let reply = try client.send(request)
        // "… is for parents: … or give the parent passphrase": asked for at the keyboard.
        let forParents = Why.Code.forParents.rawValue
        guard !reply.ok, reply.code == forParents || (reply.code == Why.Code.forParentsChildMayAsk.rawValue && reply.figures?["because"] == forParents),
              let phrase = Terminal.readHidden(prompt: tr("Parent passphrase: ")), !phrase.isEmpty else { return reply }
        request.passphrase = phrase
        return try client.send(request)
    }

    /// Sends a redemption or an approval; when today's limits leave no room for all its minutes
    /// (code `beyond_today`: nothing was paid), asks on a terminal whether to go ahead anyway and
    /// sends it again with `anyway`; without a terminal, says how (`--anyway`, or bonus time).
    func sendPaying(_ request: ControlRequest, with client: ClientOptions, bonusInstead: String) throws -> ControlReply {
        var request = request
        let reply = try send(&request, with: client)
        guard !reply.ok, reply.code == "beyond_today", !client.json else { return reply }
        let user = client.user.map { " --user \($0)" } ?? ""
        if isatty(0) == 1, !passphraseStdin {
            let why = reply.refusalWords(tr)
            StandardError.write(why.prefix(1).uppercased() + why.dropFirst() + ".\n" + tr("Go ahead anyway? [y/N] "))
            let answer = readLine(strippingNewline: true).map { $0.filter { $0 != " " && $0 != "\t" }.lowercased() }
            // English's y and yes are taken in every language, beside the language's own.
            guard let answer, ["y", "yes", tr("y", context: "answer"), tr("yes", context: "answer")].contains(answer) else {
                throw Failure("stctl: " + tr("nothing was paid. Bonus time for today: {command}", ["command": "stctl \(bonusInstead)\(user)"]), code: 1)
            }
            request.anyway = true
            return try send(&request, with: client)
        }
        throw Failure("stctl: " + tr("{why}: add --anyway, or give bonus time instead: {command}",
                                     ["why": reply.refusalWords(tr), "command": "stctl \(bonusInstead)\(user)"]), code: 1)
    }
}

/// An error for a person: printed as it is, with an exit status.
struct Failure: Error, CustomStringConvertible {
    var description: String
    var code: Int32
    init(_ description: String, code: Int32) { self.description = description; self.code = code }
}

extension ParsableCommand {
    /// Runs `body`, turning a `Failure` into its message and exit status.
    func reporting(_ body: () throws -> Void) throws { try reportingFailure(body) }
}

/// Runs `body`, turning a `Failure` into its message and exit status.
func reportingFailure(_ body: () throws -> Void) throws {
    do { try body() } catch let f as Failure {
        StandardError.write(f.description + "\n")
        throw ExitCode(f.code)
    }
}

func minutes(_ seconds: Int64) -> String { DurationText.words(seconds * Seconds.micro) }
