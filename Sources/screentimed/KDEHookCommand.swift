import ArgumentParser
import ControlProtocol
import DesktopHooks
import Dispatch
import Foundation
import Glibc
import ScreenTimeLinux
import DesktopHooksKDE

/// `screentimed kde-hook`: the KDE Plasma hook, which `stctl hook kde` runs (it execs this, so
/// that stctl itself does not load libsystemd for D-Bus: docs/benchmarks.md). Its options and
/// messages are those of `stctl hook kde`.
struct KDEHookCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kde-hook",
        abstract: "The KDE Plasma desktop hook (run by `stctl hook kde`).",
        shouldDisplay: false)

    @Option(name: .long, help: "The daemon's control socket.")
    var socket: String?

    @Option(name: .long, help: "The KWin script's main.js.")
    var script: String?

    @Option(name: .long, help: "System mode: the child whose session this is (root only).")
    var user: String?

    /// The script `make install` puts under PREFIX, found from where this program is (PREFIX/bin).
    static var installedScript: String { InstalledFiles.beside("../share/screentime/kwin/screentime/contents/code/main.js") }

    func run() throws {
        let path = URL(fileURLWithPath: script ?? Self.installedScript).standardizedFileURL.path
        guard FileManager.default.isReadableFile(atPath: path) else {
            StandardError.write("stctl: the KWin script is not there: \(path) is missing" + (script == nil ? " (make install puts it there; or pass --script)" : "") + "\n")
            throw ExitCode(2)
        }
        let log: (String) -> Void = { StandardError.write("stctl hook kde: \($0)\n") }
        let client = HookClient(hook: "kde", socketPath: socket ?? ControlProtocol.defaultSocketPath, user: user, log: log)
        let stop = KDEHook.Stop()
        let queue = DispatchQueue(label: "stctl.hook.kde.signals")
        let sources = [SIGTERM, SIGINT].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { stop.ask() }
            source.resume()
            return source
        }
        defer { sources.forEach { $0.cancel() } }
        do {
            switch try KDEHook(scriptPath: path, client: client, log: log).run(until: stop) {
            case .kwinGone: log("KWin went away; stopping")
            case .busClosed: log("the session bus closed; stopping")
            case .stopped: log("stopped; the KWin script is unloaded")
            }
        } catch let e as HookClient.Refused {
            StandardError.write("stctl: the daemon does not take this hook's events: \(e.description)\n")
            throw ExitCode(1)
        } catch {
            log("\(error)")
            throw ExitCode(1)
        }
    }
}
