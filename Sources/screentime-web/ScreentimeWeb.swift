import ArgumentParser
import FoundationEssentials
import Glibc
import ControlProtocol
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import NIOCore
import NIOSSL
import ScreenTimeCore
import ScreenTimeWords

/// The command line's words (--help, its errors) in the caller's language (their `LANGUAGE`,
/// `LC_ALL`, `LC_MESSAGES`, `LANG`; docs/translating.md). Only here: what the page says is in
/// each browser's language (`PageLanguages`), never this process's.
private let tr = Translator.forLanguages(Translator.languages(environment: ProcessInfo.processInfo.environment), folder: Translator.catalogFolder())

/// `screentime-web`: the parents' page (docs/web.md).
@main
struct ScreentimeWeb: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "screentime-web",
            abstract: tr("The parents' page: the family at a glance, requests and chores answered, from a browser."),
            discussion: tr("A client of the daemon's control socket like stctl: parents log in with the parent passphrase, which the daemon checks. It listens on 127.0.0.1 unless told otherwise; another address (the home network) needs --certificate and --key (TLS)."),
            version: ControlProtocol.release)
    }

    @Option(name: .long, help: ArgumentHelp(tr("Where to listen, ADDRESS:PORT (port 0: any free port, printed at start).")))
    var listen = "127.0.0.1:8470"

    @Option(name: .long, help: ArgumentHelp(tr("The TLS certificate (PEM; its chain after it), for a page on the home network.")))
    var certificate: String?

    @Option(name: .long, help: ArgumentHelp(tr("The TLS certificate's private key (PEM).")))
    var key: String?

    @Option(name: .long, help: ArgumentHelp(tr("The daemon's control socket (default: the system daemon's, else the user's own).")))
    var socket: String?

    @Option(name: .long, help: ArgumentHelp(tr("How long a parent stays logged in: 30m (the default), 2h; from 10s to 12h.")))
    var sessionLifetime = "30m"

    @Flag(name: .long, help: ArgumentHelp(tr("The first-run page of screentime-setup --web, which starts it (not run by hand).")))
    var firstRun = false

    var lifetime: Microseconds? { DurationText.parse(sessionLifetime).flatMap { (10 * Seconds.micro...12 * 3600 * Seconds.micro).contains($0) ? $0 : nil } }

    func validate() throws {
        guard lifetime != nil else { throw ValidationError(tr("--session-lifetime {value}: a duration from 10s to 12h, as 30m", ["value": sessionLifetime])) }
        guard (certificate == nil) == (key == nil) else { throw ValidationError(tr("--certificate and --key go together (TLS needs both)")) }
        let (host, port) = try address()
        _ = port
        if certificate == nil, !Self.isLoopback(host) {
            throw ValidationError(tr("--listen {address}: that is not this machine alone (loopback); a page on the home network needs TLS: give --certificate and --key (docs/web.md shows a self-signed one)", ["address": listen]))
        }
    }

    func address() throws -> (String, Int) {
        guard let colon = listen.lastIndex(of: ":"), let port = Int(listen[listen.index(after: colon)...]), (0...65535).contains(port) else {
            throw ValidationError(tr("--listen {address}: give ADDRESS:PORT, as 127.0.0.1:8470", ["address": listen]))
        }
        var host = String(listen[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { throw ValidationError(tr("--listen {address}: the address is missing (127.0.0.1, or this machine's address on the home network)", ["address": listen])) }
        return (host, port)
    }

    static func isLoopback(_ host: String) -> Bool { host == "localhost" || host == "::1" || host.hasPrefix("127.") }

    func run() async throws {
        let (host, port) = try address()
        let router = Router(context: PageContext.self)
        if firstRun {
            guard certificate == nil, Self.isLoopback(host) else { throw ValidationError(tr("--first-run serves this machine alone (127.0.0.1), without TLS")) }
            guard let context = FirstRunSite.context() else {
                throw FirstRunFailure(description: tr("screentime-web --first-run is started by screentime-setup --web, which gives it what to ask"))
            }
            FirstRunSite(context: context).routes(router)
        } else {
            let site = Site(daemon: DaemonLink(socket: socket ?? ControlProtocol.defaultSocketPath), secure: certificate != nil,
                            sessionLifetime: lifetime ?? 30 * 60 * Seconds.micro)
            site.routes(router)
        }
        let scheme = certificate == nil ? "http" : "https"
        let announce: @Sendable (any Channel) async -> Void = { channel in
            let bound = channel.localAddress?.port ?? port
            // Straight to the file descriptor: a test (or a parent) reads it at once, not when a buffer fills.
            // not shown: the same in every language: screentime-setup --web and the tests read the address after "listening on"
            let line = "screentime-web: listening on \(scheme)://\(host.contains(":") ? "[\(host)]" : host):\(bound)\n"
            _ = line.withCString { write(1, $0, strlen($0)) }
        }
        let configuration = ApplicationConfiguration(address: .hostname(host, port: port), serverName: nil)
        // A cap on each client's connections and a time for a request's head (ConnectionGuard);
        // a connection idle for a minute is closed.
        let guarded = ConnectionGuard()
        let http1 = HTTPServerBuilder.http1(configuration: .init(additionalChannelHandlers: guarded.handlers(), idleTimeout: .seconds(60)))
        if let certificate, let key {
            let tls: TLSConfiguration
            do {
                let chain = try NIOSSLCertificate.fromPEMFile(certificate).map { NIOSSLCertificateSource.certificate($0) }
                tls = TLSConfiguration.makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(try NIOSSLPrivateKey(file: key, format: .pem)))
            } catch {
                throw ValidationError(tr("--certificate {certificate} / --key {key}: not read as a PEM certificate and key: {error}", ["certificate": certificate, "key": key, "error": "\(error)"]))
            }
            let app = Application(router: router, server: try .tls(http1, tlsConfiguration: tls), configuration: configuration,
                                  onServerRunning: announce)
            try await app.runService()
        } else {
            let app = Application(router: router, server: http1, configuration: configuration, onServerRunning: announce)
            try await app.runService()
        }
    }
}
