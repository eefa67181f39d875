import FoundationEssentials
import Glibc

/// Where this program is installed, for what `make install` puts beside it (the X11 hook next to
/// stctl and screentimed, the KWin script under ../share).
public enum InstalledFiles {
    /// `relative` to the folder of this program's binary (`/proc/self/exe`).
    public static func beside(_ relative: String) -> String {
        let own = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: own).deletingLastPathComponent().appendingPathComponent(relative).standardizedFileURL.path
    }
}
