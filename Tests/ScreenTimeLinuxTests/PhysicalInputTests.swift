import Foundation
@testable import ScreenTimeLinux
import Testing

/// The reader of the kernel's input devices (issue #36). This machine's kernel has no input
/// devices and no uinput, so each test stands in for them through the reader's one seam
/// (`PhysicalInput.Folders`): a FIFO for each `/dev/input/eventN`, into which the test writes real
/// `struct input_event` records as a keyboard, a mouse or a uinput-made device sends them; a
/// `sysfs` folder with each device's `dev` and `device` link (a real device's path, or one under
/// `/devices/virtual`); and udev's `c13:N` property files.
@Suite("Physical input: the kernel's input devices, counted, never which key")
struct PhysicalInputTests {
    /// One `struct input_event` (64-bit): time, type, code, value.
    static func record(_ type: UInt16, _ code: UInt16, _ value: Int32) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 16)          // the time: not read
        out += withUnsafeBytes(of: type.littleEndian, Array.init)
        out += withUnsafeBytes(of: code.littleEndian, Array.init)
        out += withUnsafeBytes(of: value.littleEndian, Array.init)
        return out
    }
    static let report = record(0, 0, 0)                      // EV_SYN SYN_REPORT

    /// A key pressed and released, as a keyboard sends it (the scan code first, EV_MSC).
    static func keystroke(_ key: UInt16) -> [UInt8] {
        record(4, 4, 0x70004) + record(1, key, 1) + report + record(4, 4, 0x70004) + record(1, key, 0) + report
    }
    /// A mouse moved by (dx, dy).
    static func move(_ dx: Int32, _ dy: Int32) -> [UInt8] { record(2, 0, dx) + record(2, 1, dy) + report }

    /// A machine of input devices: `devices` are (name, device path under /sys, udev properties).
    final class Machine {
        let root: String
        let folders: PhysicalInput.Folders
        var writers: [String: FileHandle] = [:]

        init(_ devices: [(name: String, path: String, udev: [String])]) throws {
            let fm = FileManager.default
            root = fm.temporaryDirectory.appendingPathComponent("screentime-input-\(UUID().uuidString)").path
            folders = PhysicalInput.Folders(devices: root + "/dev/input", sysfs: root + "/sys/class/input", udev: root + "/run/udev/data")
            for folder in [folders.devices, folders.sysfs, folders.udev] { try fm.createDirectory(atPath: folder, withIntermediateDirectories: true) }
            for (k, d) in devices.enumerated() {
                #expect(mkfifo(folders.devices + "/" + d.name, 0o600) == 0)
                let device = root + "/sys" + d.path
                try fm.createDirectory(atPath: device, withIntermediateDirectories: true)
                try fm.createDirectory(atPath: folders.sysfs + "/" + d.name, withIntermediateDirectories: true)
                try fm.createSymbolicLink(atPath: folders.sysfs + "/" + d.name + "/device", withDestinationPath: device)
                try "13:\(64 + k)\n".write(toFile: folders.sysfs + "/" + d.name + "/dev", atomically: true, encoding: .utf8)
                try d.udev.map { "E:" + $0 + "\n" }.joined().write(toFile: folders.udev + "/c13:\(64 + k)", atomically: true, encoding: .utf8)
            }
        }

        /// Opens `name` for writing (after the reader opened it for reading) and writes `bytes`.
        func send(_ name: String, _ bytes: [UInt8]) throws {
            if writers[name] == nil { writers[name] = try FileHandle(forWritingTo: URL(fileURLWithPath: folders.devices + "/" + name)) }
            try writers[name]!.write(contentsOf: Data(bytes))
        }

        deinit {
            for w in writers.values { try? w.close() }
            try? FileManager.default.removeItem(atPath: root)
        }
    }

    static let keyboard = (name: "event3", path: "/devices/platform/i8042/serio0/input/input3", udev: ["ID_INPUT=1", "ID_INPUT_KEYBOARD=1"])
    static let mouse = (name: "event5", path: "/devices/pci0000:00/0000:00:14.0/usb1/1-2/1-2:1.0/0003:046D:C077.0001/input/input5",
                        udev: ["ID_INPUT=1", "ID_INPUT_MOUSE=1"])
    /// What `uinput` makes (xdotool's and ydotool's kind): a device under /devices/virtual.
    static let uinput = (name: "event9", path: "/devices/virtual/input/input9", udev: ["ID_INPUT=1", "ID_INPUT_KEYBOARD=1", "ID_INPUT_MOUSE=1"])
    static let otherSeat = (name: "event11", path: "/devices/pci0000:00/0000:00:14.0/usb1/1-4/input/input11",
                            udev: ["ID_INPUT=1", "ID_INPUT_KEYBOARD=1", "ID_SEAT=seat1"])
    static let powerButton = (name: "event0", path: "/devices/LNXSYSTM:00/LNXPWRBN:00/input/input0", udev: ["ID_INPUT=1", "ID_INPUT_KEY=1"])

    @Test("a keyboard and a mouse of the seat are read; a uinput device, another seat's keyboard and the power button are not, each with why")
    func whichDevices() throws {
        let m = try Machine([Self.keyboard, Self.mouse, Self.uinput, Self.otherSeat, Self.powerButton])
        let input = PhysicalInput(seat: "seat0", folders: m.folders)
        #expect(input.reading == ["event3", "event5"])
        #expect(input.notRead["event9"] == "made by software (under /sys/devices/virtual), not a person's")
        #expect(input.notRead["event11"] == "on seat1, not seat0")
        #expect(input.notRead["event0"] == "not a keyboard or pointer")
    }

    @Test("typing and moving are counted by report: a press and a movement count, a release, a held key's repeats and a scan code alone do not")
    func counts() throws {
        let m = try Machine([Self.keyboard, Self.mouse])
        let input = PhysicalInput(seat: "seat0", folders: m.folders)
        let (keyboard, mouse) = (input.descriptors[0], input.descriptors[1])
        // Three keystrokes (press and release each), then a held key's repeats (value 2).
        try m.send("event3", Self.keystroke(30) + Self.keystroke(31) + Self.keystroke(32) + Self.record(1, 33, 2) + Self.report)
        #expect(input.read(keyboard) == 3)
        try m.send("event5", Self.move(3, -1) + Self.move(0, 2))
        #expect(input.read(mouse) == 2)
        // Nothing more: nothing counted, the devices stay open.
        #expect(input.read(keyboard) == 0)
        #expect(input.reading == ["event3", "event5"])
    }

    @Test("a report split between two reads is counted once, when it ends")
    func splitReport() throws {
        let m = try Machine([Self.keyboard])
        let input = PhysicalInput(seat: "seat0", folders: m.folders)
        let stroke = Self.keystroke(44)
        try m.send("event3", Array(stroke[0..<30]))           // a record and a piece of the next
        #expect(input.read(input.descriptors[0]) == 0)
        try m.send("event3", Array(stroke[30...]))
        #expect(input.read(input.descriptors[0]) == 1)
    }

    @Test("which key is never told: the same typing with other keys counts the same, and what was counted is wiped from the bytes")
    func noKeyLeaves() {
        var a = Self.keystroke(30) + Self.keystroke(30)         // "aa"
        var secret = Self.keystroke(25) + Self.keystroke(18)    // "po"
        #expect(PhysicalInput.activity(in: &a) == PhysicalInput.activity(in: &secret))
        // Nothing of a finished report is left in the buffer, the codes least of all.
        #expect(a.isEmpty && secret.isEmpty)
        var unfinished = Self.record(1, 25, 1)
        #expect(PhysicalInput.activity(in: &unfinished) == 0)
        #expect(unfinished.count == PhysicalInput.recordSize)   // kept until its report ends
    }

    @Test("a device that goes away (unplugged) is closed and no longer read")
    func unplugged() throws {
        let m = try Machine([Self.keyboard, Self.mouse])
        let input = PhysicalInput(seat: "seat0", folders: m.folders)
        try m.send("event5", Self.move(1, 1))
        try m.writers["event5"]?.close()
        m.writers["event5"] = nil
        #expect(input.read(input.descriptors[1]) == 1)
        #expect(input.reading == ["event3"])
        #expect(input.notRead["event5"] == "gone")
    }
}
