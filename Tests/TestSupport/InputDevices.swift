import Foundation
import ScreenTimeLinux

/// Stands in for the kernel's input devices, which this machine's kernel does not have (no
/// keyboard, no mouse, no uinput): a folder the reader (`PhysicalInput`, and the system daemon
/// through `--input-root`) is pointed at, as its one seam. Each device is a FIFO for
/// `/dev/input/eventN`, into which a test writes real `struct input_event` records as a keyboard, a
/// mouse or a uinput-made device sends them; a `sys/class/input` folder with each device's `dev`
/// and `device` link (a real device's path, or one under `/devices/virtual`); and udev's `c13:N`
/// property files under `run/udev/data`.
public final class InputDevices {
    /// The folder that stands for `/` (`--input-root`).
    public let root: String
    public let folders: PhysicalInput.Folders
    public var writers: [String: FileHandle] = [:]

    public typealias Device = (name: String, path: String, udev: [String])

    public static let keyboard: Device = ("event3", "/devices/platform/i8042/serio0/input/input3", ["ID_INPUT=1", "ID_INPUT_KEYBOARD=1"])
    public static let mouse: Device = ("event5", "/devices/pci0000:00/0000:00:14.0/usb1/1-2/1-2:1.0/0003:046D:C077.0001/input/input5",
                                       ["ID_INPUT=1", "ID_INPUT_MOUSE=1"])
    /// What `uinput` makes (xdotool's and ydotool's kind): a device under /devices/virtual.
    public static let uinput: Device = ("event9", "/devices/virtual/input/input9", ["ID_INPUT=1", "ID_INPUT_KEYBOARD=1", "ID_INPUT_MOUSE=1"])
    public static let otherSeat: Device = ("event11", "/devices/pci0000:00/0000:00:14.0/usb1/1-4/input/input11",
                                           ["ID_INPUT=1", "ID_INPUT_KEYBOARD=1", "ID_SEAT=seat1"])
    public static let powerButton: Device = ("event0", "/devices/LNXSYSTM:00/LNXPWRBN:00/input/input0", ["ID_INPUT=1", "ID_INPUT_KEY=1"])

    public init(_ devices: [Device]) throws {
        let fm = FileManager.default
        root = fm.temporaryDirectory.appendingPathComponent("screentime-input-\(UUID().uuidString)").path
        folders = PhysicalInput.Folders(devices: root + "/dev/input", sysfs: root + "/sys/class/input", udev: root + "/run/udev/data")
        for folder in [folders.devices, folders.sysfs, folders.udev] { try fm.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        for (k, d) in devices.enumerated() { try plug(d, minor: 64 + k) }
    }

    /// A device appears, as the kernel and udev list one plugged in; `minor`: its device number's.
    public func plug(_ d: Device, minor: Int) throws {
        let fm = FileManager.default
        guard mkfifo(folders.devices + "/" + d.name, 0o600) == 0 else { throw FixtureFailure("cannot make the FIFO for \(d.name)") }
        let device = root + "/sys" + d.path
        try fm.createDirectory(atPath: device, withIntermediateDirectories: true)
        try fm.createDirectory(atPath: folders.sysfs + "/" + d.name, withIntermediateDirectories: true)
        try fm.createSymbolicLink(atPath: folders.sysfs + "/" + d.name + "/device", withDestinationPath: device)
        try "13:\(minor)\n".write(toFile: folders.sysfs + "/" + d.name + "/dev", atomically: true, encoding: .utf8)
        try d.udev.map { "E:" + $0 + "\n" }.joined().write(toFile: folders.udev + "/c13:\(minor)", atomically: true, encoding: .utf8)
    }

    /// Opens `name` for writing (it waits until the reader opened it) and writes `bytes`.
    public func send(_ name: String, _ bytes: [UInt8]) throws {
        if writers[name] == nil { writers[name] = try FileHandle(forWritingTo: URL(fileURLWithPath: folders.devices + "/" + name)) }
        try writers[name]!.write(contentsOf: Data(bytes))
    }

    /// Whether something has `name` open for reading now (a FIFO opened for writing without
    /// waiting fails when nobody reads it). Only for a device the reader should not have: when
    /// this writer closes, a reader that has it sees the device gone.
    public func isRead(_ name: String) -> Bool {
        let fd = open(folders.devices + "/" + name, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return false }
        close(fd)
        return true
    }

    deinit {
        for w in writers.values { try? w.close() }
        try? FileManager.default.removeItem(atPath: root)
    }

    /// One `struct input_event` (64-bit): time, type, code, value.
    public static func record(_ type: UInt16, _ code: UInt16, _ value: Int32) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 16)          // the time: not read
        out += withUnsafeBytes(of: type.littleEndian, Array.init)
        out += withUnsafeBytes(of: code.littleEndian, Array.init)
        out += withUnsafeBytes(of: value.littleEndian, Array.init)
        return out
    }
    public static let report = record(0, 0, 0)                      // EV_SYN SYN_REPORT

    /// A key pressed and released, as a keyboard sends it (the scan code first, EV_MSC).
    public static func keystroke(_ key: UInt16) -> [UInt8] {
        record(4, 4, 0x70004) + record(1, key, 1) + report + record(4, 4, 0x70004) + record(1, key, 0) + report
    }
    /// A mouse moved by (dx, dy).
    public static func move(_ dx: Int32, _ dy: Int32) -> [UInt8] { record(2, 0, dx) + record(2, 1, dy) + report }
}
