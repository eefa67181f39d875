import CX11
import ControlProtocol
import DesktopHooks
import Foundation
import ScreenTimeCore
import ScreenTimeLinux

// The X11 desktop hook (`stctl hook x11` runs it): reports the focused window (from
// `_NET_ACTIVE_WINDOW`: pid from the X server itself, through the X-Resource extension; `WM_CLASS` as
// app_id; `_NET_WM_NAME` or `WM_NAME` as title) and input (from the XScreenSaver idle counter,
// through `InputThrottle`) to the daemon, until the X server goes away. With `--leave-out-xtest`
// (the system daemon starts it so) input is taken from XInput 2's raw events of every device but
// the XTEST ones instead: what `xdotool` and other programs fake through XTEST resets the idle
// counter, but comes from an XTEST device, so it is not counted.

func say(_ text: String) { FileHandle.standardError.write(Data("screentime-hook-x11: \(text)\n".utf8)) }

var socketPath = ControlProtocol.defaultSocketPath
var user: String? = nil
var leaveOutXTEST = false
var arguments = CommandLine.arguments.dropFirst()
while let a = arguments.popFirst() {
    switch a {
    case "--socket":
        guard let p = arguments.popFirst() else { say("--socket needs a path"); exit(2) }
        socketPath = p
    case "--user":
        guard let name = arguments.popFirst() else { say("--user needs a user name"); exit(2) }
        user = name
    case "--leave-out-xtest":
        leaveOutXTEST = true
    case "-h", "--help":
        print("usage: stctl hook x11 [--socket PATH] [--user NAME] [--leave-out-xtest]\nReports the focused window and input of this X display ($DISPLAY) to screentimed"
              + " (--user: the child whose session it is, for the system daemon; it starts this hook itself, as root;"
              + " --leave-out-xtest: input that programs fake through XTEST is not counted).")
        exit(0)
    default:
        say("unknown argument '\(a)' (usage: stctl hook x11 [--socket PATH] [--user NAME] [--leave-out-xtest])")
        exit(2)
    }
}

guard let display = XOpenDisplay(nil) else {
    say("cannot open the X display \(ProcessInfo.processInfo.environment["DISPLAY"].map { "'\($0)'" } ?? "(DISPLAY is not set)")")
    exit(1)
}
// A window can vanish between the event and the question: its errors are expected, not fatal.
XSetErrorHandler { _, _ in 0 }
XSetIOErrorHandler { _ in
    FileHandle.standardError.write(Data("screentime-hook-x11: the X server went away; stopping\n".utf8))
    exit(0)
}

/// The properties this hook reads, on one display.
struct X11Windows {
    let display: OpaquePointer
    let root: Window
    let activeWindow, netWMName, utf8String: Atom

    init(_ display: OpaquePointer) {
        self.display = display
        root = XDefaultRootWindow(display)
        func atom(_ name: String) -> Atom { XInternAtom(display, name, 0) }
        activeWindow = atom("_NET_ACTIVE_WINDOW")
        netWMName = atom("_NET_WM_NAME")
        utf8String = atom("UTF8_STRING")
    }

    /// A property's raw bytes (format 8) or items (format 32, as C longs).
    func property(_ window: Window, _ name: Atom) -> (format: Int32, bytes: [UInt8], longs: [Int])? {
        var type: Atom = 0, format: Int32 = 0, count: UInt = 0, after: UInt = 0
        var data: UnsafeMutablePointer<UInt8>? = nil
        guard XGetWindowProperty(display, window, name, 0, 4096, 0, Atom(AnyPropertyType), &type, &format, &count, &after, &data) == Success,
              let data else { return nil }
        defer { XFree(data) }
        switch format {
        case 8: return (8, Array(UnsafeBufferPointer(start: data, count: Int(count))), [])
        case 32:
            let longs = UnsafeRawPointer(data).bindMemory(to: Int.self, capacity: Int(count))
            return (32, [], Array(UnsafeBufferPointer(start: longs, count: Int(count))))
        default: return nil
        }
    }

    var active: Window? {
        guard let w = property(root, activeWindow)?.longs.first, w != 0 else { return nil }
        return Window(bitPattern: w)
    }

    /// The pid of the client that made the window, as the X server knows it from the client's
    /// socket (X-Resource 1.2). Never `_NET_WM_PID`: any client may write that property on any
    /// window, so a child could label a game's window with a learning app's pid. A client the
    /// server has no pid for (over TCP) gives nil: a window of nobody known.
    func pid(of window: Window) -> Int32? {
        var spec = XResClientIdSpec(client: window, mask: 2 /* XRES_CLIENT_ID_PID_MASK */)
        var count = 0
        var ids: UnsafeMutablePointer<XResClientIdValue>? = nil
        guard XResQueryClientIds(display, 1, &spec, &count, &ids) == Success, let ids else { return nil }
        defer { XResClientIdsDestroy(count, ids) }
        for k in 0..<count {
            let pid = XResGetClientPid(ids + k)
            if pid > 0 { return pid }
        }
        return nil
    }

    /// The class part of WM_CLASS ("instance\0class\0").
    func appID(of window: Window) -> String? {
        guard let bytes = property(window, Atom(XA_WM_CLASS))?.bytes else { return nil }
        let parts = bytes.split(separator: 0, omittingEmptySubsequences: false)
        guard parts.count >= 2, !parts[1].isEmpty else { return nil }
        return String(decoding: parts[1], as: UTF8.self)
    }

    func title(of window: Window) -> String? {
        if let b = property(window, netWMName)?.bytes, !b.isEmpty { return String(decoding: b, as: UTF8.self) }
        // WM_NAME is usually Latin-1 (STRING); UTF-8 when a client says so.
        guard let b = property(window, Atom(XA_WM_NAME))?.bytes, !b.isEmpty else { return nil }
        return String(validating: b, as: UTF8.self) ?? String(b.map { Character(Unicode.Scalar($0)) })
    }

    /// Seconds since the last input, from the XScreenSaver extension.
    func idle(_ info: UnsafeMutablePointer<XScreenSaverInfo>) -> Microseconds? {
        guard XScreenSaverQueryInfo(display, root, info) != 0 else { return nil }
        return Microseconds(info.pointee.idle) * 1000
    }
}

/// Input as XInput 2 sees it, device by device: the last time a device that is not an XTEST one
/// (a keyboard, a mouse, a touchpad the X server reads) pressed a key or a button or moved.
struct RealDeviceInput {
    let display: OpaquePointer
    let opcode: Int32
    /// The XTEST devices (the server makes one per keyboard and pointer, for faked input).
    private var xtest: Set<Int32> = []
    /// When a real device was last used (monotonic); nil: not yet.
    private(set) var last: Microseconds? = nil

    /// nil: the X server has no XInput 2.
    init?(_ display: OpaquePointer, root: Window) {
        var opcode: Int32 = 0, event: Int32 = 0, error: Int32 = 0
        guard XQueryExtension(display, "XInputExtension", &opcode, &event, &error) != 0 else { return nil }
        var major: Int32 = 2, minor: Int32 = 0
        guard XIQueryVersion(display, &major, &minor) == Success else { return nil }
        self.display = display
        self.opcode = opcode
        // Raw events come to the root window only; from masters, each naming the device it came from.
        Self.select(display, root, device: Int32(XIAllMasterDevices), [XI_RawKeyPress, XI_RawButtonPress, XI_RawMotion, XI_RawTouchBegin])
        Self.select(display, root, device: Int32(XIAllDevices), [XI_HierarchyChanged])
        findXTEST()
    }

    private static func select(_ display: OpaquePointer, _ window: Window, device: Int32, _ events: [Int32]) {
        var bits = [UInt8](repeating: 0, count: 4)
        for e in events { bits[Int(e) >> 3] |= UInt8(1 << (e & 7)) }
        bits.withUnsafeMutableBufferPointer { b in
            var mask = XIEventMask(deviceid: device, mask_len: Int32(b.count), mask: b.baseAddress)
            _ = XISelectEvents(display, window, &mask, 1)
        }
    }

    /// The XTEST devices now (again after a device is added or removed).
    mutating func findXTEST() {
        var count: Int32 = 0
        guard let devices = XIQueryDevice(display, Int32(XIAllDevices), &count) else { return }
        defer { XIFreeDeviceInfo(devices) }
        xtest = Set((0..<Int(count)).compactMap { k in
            let d = devices[k]
            return d.name.map { String(cString: $0).contains("XTEST") } == true ? d.deviceid : nil
        })
    }

    /// Takes an XInput 2 event; true when it was one (handled here).
    mutating func take(_ event: inout XEvent) -> Bool {
        guard event.type == GenericEvent, event.xcookie.extension == opcode, XGetEventData(display, &event.xcookie) != 0 else { return false }
        defer { XFreeEventData(display, &event.xcookie) }
        if event.xcookie.evtype == XI_HierarchyChanged { findXTEST(); return true }
        let raw = event.xcookie.data.assumingMemoryBound(to: XIRawEvent.self).pointee
        if !xtest.contains(raw.sourceid) { last = SystemClock.monoMicros() }
        return true
    }

    /// Time since a real device was last used, as the XScreenSaver counter would say it (nil: none was yet).
    func idle(now: Microseconds) -> Microseconds? { last.map { now - $0 } }
}

let x = X11Windows(display)
let client = HookClient(hook: "x11", socketPath: socketPath, user: user, log: say)
XSelectInput(display, x.root, PropertyChangeMask)
var watched: Window? = nil

/// Since when no window has been active, while that is not reported yet: window managers clear
/// `_NET_ACTIVE_WINDOW` for a moment while focus moves, and that moment is not a change.
var noneSince: Microseconds? = nil
let settle: Microseconds = 300_000

/// Reports the active window (and follows its title).
@MainActor func reportFocus() throws(HookClient.Refused) {
    let active = x.active
    if active == nil {
        let now = SystemClock.monoMicros()
        if noneSince == nil { noneSince = now }
        if now - noneSince! < settle { return }
    } else {
        noneSince = nil
    }
    if active != watched {
        if let old = watched { XSelectInput(display, old, NoEventMask) }
        if let new = active { XSelectInput(display, new, PropertyChangeMask) }
        watched = active
    }
    guard let w = active else { return try client.focused(pid: nil, appID: nil, title: nil) }
    try client.focused(pid: x.pid(of: w), appID: x.appID(of: w), title: x.title(of: w))
}

guard let info = XScreenSaverAllocInfo() else { say("the X server has no XScreenSaver extension: input is not reported"); exit(1) }
var realInput: RealDeviceInput? = nil
if leaveOutXTEST {
    guard let r = RealDeviceInput(display, root: x.root) else { say("the X server has no XInput 2: input cannot be told from XTEST's, and is not reported"); exit(1) }
    realInput = r
}
var throttle = InputThrottle()
var random = SystemRandomNumberGenerator()
let fd = XConnectionNumber(display)
do {
    try reportFocus()
    while true {
        var event = XEvent()
        var refocus = false
        while XPending(display) > 0 {
            XNextEvent(display, &event)
            if realInput?.take(&event) == true { continue }
            guard event.type == PropertyNotify else { continue }
            let p = event.xproperty
            if p.window == x.root && p.atom == x.activeWindow { refocus = true }
            if p.window == watched && (p.atom == x.netWMName || p.atom == Atom(XA_WM_NAME)) { refocus = true }
        }
        if refocus || noneSince != nil { try reportFocus() }
        let now = SystemClock.monoMicros()
        // With --leave-out-xtest, only a real device's input counts (none yet: nothing to report).
        let idle = realInput != nil ? realInput!.idle(now: now) : x.idle(info)
        if let idle, throttle.observe(idle: idle, now: now, random: &random) {
            try client.input()
        }
        // Round trips above may have read events into Xlib's queue, where the socket no longer
        // shows them: those are handled at once, not after the poll's timeout.
        guard XQLength(display) == 0 else { continue }
        var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
        _ = poll(&fds, 1, noneSince == nil ? 200 : 100)
    }
} catch {
    say("the daemon does not take this hook's events: \(error.description)")
    exit(1)
}
