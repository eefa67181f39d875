import ArgumentParser
import ControlProtocol
import DesktopHooks
import Dispatch
import FoundationEssentials
import Glibc
import ScreenTimeLinux

struct HookKDE: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kde",
        abstract: "Report the active window and input of this KDE Plasma session until KWin goes away.",
        discussion: """
            Loads the KWin script (installed in PREFIX/share/screentime/kwin/screentime) into KWin over the session bus and \
            takes its reports on org.screentime.KWinHook; input comes from org.freedesktop.ScreenSaver (X11), else from the \
            Wayland compositor's idle notifications. SIGTERM unloads the script.
            """)

    @Option(name: .long, help: "The daemon's control socket (default: $XDG_RUNTIME_DIR/screentime/control.sock, else the system daemon's).")
    var socket: String?

    @Option(name: .long, help: "The KWin script's main.js (default: the installed one, ../share/screentime/kwin/screentime/contents/code/main.js beside stctl's folder).")
    var script: String?

    @Option(name: .long, help: "System mode: the child whose session this is (root only).")
    var user: String?

    /// The script `make install` puts under PREFIX, found from where this stctl is (PREFIX/bin).
    static var installedScript: String { InstalledFiles.beside("../share/screentime/kwin/screentime/contents/code/main.js") }

    func run() throws {
        let path = URL(fileURLWithPath: script ?? Self.installedScript).standardizedFileURL.path
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw Failure("stctl: the KWin script is not there: \(path) is missing" + (script == nil ? " (make install puts it there; or pass --script)" : ""), code: 2)
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
            throw Failure("stctl: the daemon does not take this hook's events: \(e.description)", code: 1)
        } catch {
            throw Failure("stctl hook kde: \(error)", code: 1)
        }
    }
}
