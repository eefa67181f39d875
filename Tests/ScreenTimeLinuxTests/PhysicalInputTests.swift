import Foundation
@testable import ScreenTimeLinux
import TestSupport
import Testing

/// The reader of the kernel's input devices (issue #36). This machine's kernel has no input
/// devices and no uinput, so each test stands in for them through the reader's one seam
/// (`PhysicalInput.Folders`), with `InputDevices`: FIFOs into which the test writes real
/// `struct input_event` records, and the kernel's and udev's descriptions of each device.
@Suite("Physical input: the kernel's input devices, counted, never which key")
struct PhysicalInputTests {
    typealias Machine = InputDevices
    static let (keyboard, mouse, uinput, otherSeat, powerButton) = (InputDevices.keyboard, InputDevices.mouse, InputDevices.uinput,
                                                                    InputDevices.otherSeat, InputDevices.powerButton)
    static func record(_ type: UInt16, _ code: UInt16, _ value: Int32) -> [UInt8] { InputDevices.record(type, code, value) }
    static let report = InputDevices.report
    static func keystroke(_ key: UInt16) -> [UInt8] { InputDevices.keystroke(key) }
    static func move(_ dx: Int32, _ dy: Int32) -> [UInt8] { InputDevices.move(dx, dy) }

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

    @Test("a keyboard plugged in after the start is read once the devices are looked at again; a uinput one still is not")
    func pluggedIn() throws {
        let m = try Machine([Self.keyboard])
        let input = PhysicalInput(seat: "seat0", folders: m.folders)
        #expect(input.reading == ["event3"])
        #expect(input.rescan() == [])
        try m.plug(Self.mouse, minor: 70)
        try m.plug(Self.uinput, minor: 71)
        #expect(input.rescan() == ["event5"])
        #expect(input.reading == ["event3", "event5"])
        #expect(input.notRead["event9"] == "made by software (under /sys/devices/virtual), not a person's")
        try m.send("event5", Self.move(2, 2))
        #expect(input.read(input.descriptors[1]) == 1)
    }
}
