import DesktopHooks
import ScreenTimeCore
import ScreenTimeLinux
import ScreenTimeSystemd

/// System mode's input (issue #36): a person at seat0's keyboards and pointers, counted by root
/// from the kernel's devices (`PhysicalInput`), and told as `input` to the child whose session is
/// the active one on the seat (logind says which). Never from what a desktop says: a compositor
/// counts software input too (XTEST, a remote-desktop session, a virtual keyboard), and the
/// child's own compositor is the child's. Idle follows from the same input (`idle_after`).
///
/// Reports are spaced as a desktop hook's are (`InputThrottle`): when input starts after a quiet
/// second, then every 1.5 to 4.5 s while it goes on, so steady typing does not look periodic.
struct SeatInput {
    static let seat = "seat0"
    let devices: PhysicalInput
    let sessions: LoginSessions
    private var throttle = InputThrottle()
    private var random = SystemRandomNumberGenerator()
    /// Which child holds the seat, as logind said last, and when it was asked (monotonic).
    private var holder: (uid: UInt32?, asked: Microseconds)? = nil
    /// How long logind's answer is used before it is asked again (only while input comes).
    static let askEvery = Seconds.of(2)
    /// Why logind could not say who holds the seat (nil: it could).
    private(set) var problem: String? = nil

    init(folders: PhysicalInput.Folders, sessions: LoginSessions) {
        devices = PhysicalInput(seat: Self.seat, folders: folders)
        self.sessions = sessions
    }

    /// The devices' descriptors, to poll.
    var descriptors: [Int32] { devices.descriptors }

    /// How often the kernel's device list is looked at again, for a keyboard or mouse plugged in.
    static let rescanEvery = Seconds.of(5)
    private(set) var nextRescan: Microseconds = SystemClock.monoMicros() + rescanEvery

    /// Opens the devices plugged in since the last look, when one is due; their names.
    mutating func rescanIfDue(now: Microseconds) -> [String] {
        guard now >= nextRescan else { return [] }
        nextRescan = now + Self.rescanEvery
        return devices.rescan()
    }

    /// Reads what the ready devices have; the child to tell of input now, if any (none: no input,
    /// a report too soon after the last, or no child of `children` holds the seat).
    mutating func read(ready: Set<Int32>, children: [UInt32], now: Microseconds) -> (child: UInt32, count: Int)? {
        var count = 0
        for fd in devices.descriptors where ready.contains(fd) { count += devices.read(fd) }
        guard count > 0, throttle.observe(idle: 0, now: now, random: &random) else { return nil }
        return seatHolder(among: children, now: now).map { ($0, count) }
    }

    /// The child whose session is the active one on the seat (asked of logind at most every 2 s).
    private mutating func seatHolder(among children: [UInt32], now: Microseconds) -> UInt32? {
        if let h = holder, now - h.asked < Self.askEvery { return h.uid }
        var found: UInt32? = nil
        do {
            for uid in children where try sessions.sessions(of: uid).contains(where: { $0.holds(seat: Self.seat) }) {
                found = uid
                break
            }
            problem = nil
        } catch {
            // Unknown: the input is told to no one (it would credit someone who may not be there).
            problem = "logind cannot say whose session is active on \(Self.seat): \(error.description)"
        }
        holder = (found, now)
        return found
    }

    /// What the daemon says at its start: the devices read, and those not read with why.
    var startLine: String {
        let read = devices.reading
        let notRead: [String] = devices.notRead.sorted { $0.key < $1.key }.map { "\($0.key) (\($0.value))" }
        var line = "input is counted from " + (read.isEmpty ? "no device" : read.joined(separator: ", ")) + " of " + Self.seat
        if !notRead.isEmpty { line += "; not read: " + notRead.joined(separator: ", ") }
        if read.isEmpty { line += ": input is not counted, so learning earns nothing" }
        return line
    }

    /// What status says of the seat's input, when something is missing (nil: devices are read).
    var blindSpot: String? {
        if let problem { return problem + "; input at the keyboard is not counted meanwhile" }
        guard devices.reading.isEmpty else { return nil }
        let why = devices.notRead.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: "; ")
        return "no keyboard or pointer of \(Self.seat) is read (\(why.isEmpty ? "the kernel lists none" : why)): input is not counted, so learning earns nothing"
    }
}
