import ArgumentParser
import FoundationEssentials
import Glibc
import ScreenTimeLinux
import ScreenTimeWords

struct HookKDE: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "kde",
            abstract: tr("Report the active window and input of this KDE Plasma session until KWin goes away."),
            discussion: tr("Loads the KWin script (installed in PREFIX/share/screentime/kwin/screentime) into KWin over the session bus and takes its reports on org.screentime.KWinHook; input comes from org.freedesktop.ScreenSaver (X11), else from the Wayland compositor's idle notifications. SIGTERM unloads the script. Runs `screentimed kde-hook`, installed next to stctl (stctl itself does not load libsystemd, which D-Bus needs)."))
    }

    @Option(name: .long, help: ArgumentHelp(tr("The daemon's control socket (default: $XDG_RUNTIME_DIR/screentime/control.sock, else the system daemon's).")))
    var socket: String?

    @Option(name: .long, help: ArgumentHelp(tr("The KWin script's main.js (default: the installed one, ../share/screentime/kwin/screentime/contents/code/main.js beside stctl's folder).")))
    var script: String?

    @Option(name: .long, help: ArgumentHelp(tr("System mode: the child whose session this is (root only).")))
    var user: String?

    func run() throws {
        let daemon = InstalledFiles.beside("screentimed")
        guard access(daemon, X_OK) == 0 else {
            throw Failure("stctl: " + tr("the KDE hook is not installed: {path} is missing (make install puts screentimed next to stctl)", ["path": daemon]), code: 2)
        }
        let args = [daemon, "kde-hook"] + (socket.map { ["--socket", $0] } ?? []) + (script.map { ["--script", $0] } ?? [])
            + (user.map { ["--user", $0] } ?? [])
        var argv = args.map { strdup($0) } + [nil]
        execv(daemon, &argv)
        throw Failure("stctl: " + tr("cannot run {path}: {why}", ["path": daemon, "why": String(cString: strerror(errno))]), code: 2)
    }
}
