import Glibc

/// Input as the kernel's input devices see it (issue #36): a person at the keyboard or the
/// pointer of a seat, read by root from `/dev/input/event*`. Software input (XTEST, a desktop's
/// remote-desktop interface, a uinput device the child made) reaches the X server or the
/// compositor, not these devices; a device the kernel made for software is under
/// `/sys/devices/virtual` and is not read.
///
/// What leaves this type is a count of presses and movements, never which key: the records are
/// read into a buffer that is counted and cleared, and nothing else is kept (docs/security.md).
public final class PhysicalInput {
    /// Where the devices and their descriptions are: the seam the tests replace (this machine's
    /// kernel has no input devices) with recorded `struct input_event` streams in a folder.
    public struct Folders: Sendable {
        /// The device nodes (`eventN`).
        public var devices: String
        /// The kernel's description of each (`eventN/dev`, `eventN/device` → its device folder).
        public var sysfs: String
        /// udev's properties of each (`c13:MINOR`: `ID_SEAT`, `ID_INPUT_KEYBOARD`, …).
        public var udev: String

        public static let system = Folders(devices: "/dev/input", sysfs: "/sys/class/input", udev: "/run/udev/data")

        public init(devices: String, sysfs: String, udev: String) {
            self.devices = devices
            self.sysfs = sysfs
            self.udev = udev
        }
    }

    /// One device, as the kernel and udev describe it.
    public struct Device: Sendable, Equatable {
        public var name: String
        public var seat: String
        /// Made by the kernel for software (uinput among them), not a device a person touches.
        public var virtual: Bool
        /// udev says it is a keyboard, a mouse, a touchpad, a touchscreen or a tablet.
        public var personal: Bool
    }

    /// A device being read.
    private struct Open { var device: Device; var fd: Int32; var partial: [UInt8] }

    public let seat: String
    let folders: Folders
    private var open: [Open] = []
    /// The devices not read, and why, in words (for status and the journal).
    public private(set) var notRead: [String: String] = [:]
    private var buffer = [UInt8](repeating: 0, count: 64 * PhysicalInput.recordSize)

    /// `struct input_event` on a 64-bit kernel: a `timeval` (16 bytes), `type` and `code` (2 each),
    /// `value` (4).
    public static let recordSize = 24

    /// Opens every keyboard and pointer of `seat` that a person can touch.
    public init(seat: String, folders: Folders = .system) {
        self.seat = seat
        self.folders = folders
        rescan()
    }

    /// Opens the seat's keyboards and pointers that are not read yet (one plugged in since);
    /// returns the names of those it opened.
    @discardableResult
    public func rescan() -> [String] {
        var opened: [String] = []
        let present = Self.devices(in: folders)
        // What is gone is forgotten: a device plugged in again under its name is looked at again.
        notRead = notRead.filter { name, _ in present.contains { $0.name == name } }
        for device in present where !open.contains(where: { $0.device.name == device.name }) {
            if device.virtual { notRead[device.name] = "made by software (under /sys/devices/virtual), not a person's"; continue }
            if !device.personal { notRead[device.name] = "not a keyboard or pointer"; continue }
            if device.seat != seat { notRead[device.name] = "on \(device.seat), not \(seat)"; continue }
            let fd = Glibc.open(folders.devices + "/" + device.name, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
            guard fd >= 0 else { notRead[device.name] = "cannot be opened: \(String(cString: strerror(errno)))"; continue }
            notRead[device.name] = nil
            open.append(Open(device: device, fd: fd, partial: []))
            opened.append(device.name)
        }
        return opened
    }

    deinit { for o in open { Glibc.close(o.fd) } }

    /// The devices read, by name.
    public var reading: [String] { open.map(\.device.name) }

    /// The descriptors to poll for reading.
    public var descriptors: [Int32] { open.map(\.fd) }

    /// Reads what the device behind `fd` has, and counts it: how many reports (one per `SYN_REPORT`)
    /// held a key press or a movement. A device that is gone is closed and no longer read.
    public func read(_ fd: Int32) -> Int {
        guard let k = open.firstIndex(where: { $0.fd == fd }) else { return 0 }
        var count = 0
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, $0.count) }
            if n > 0 {
                var bytes = open[k].partial + buffer[0..<n]
                count += Self.activity(in: &bytes)
                open[k].partial = bytes
                for i in 0..<n { buffer[i] = 0 }
                continue
            }
            if n < 0, errno == EINTR { continue }
            if n == 0 || (n < 0 && errno != EAGAIN) {
                notRead[open[k].device.name] = "gone"
                Glibc.close(fd)
                open.remove(at: k)
            }
            return count
        }
    }

    /// Counts the reports in `bytes` (whole records) that held a key press or a movement, and leaves
    /// in it only an incomplete record at the end and the events of a report not yet ended.
    /// Key codes are looked at only to be counted.
    public static func activity(in bytes: inout [UInt8]) -> Int {
        var count = 0
        var active = false
        var consumed = 0
        var offset = 0
        while offset + recordSize <= bytes.count {
            let type = UInt16(bytes[offset + 16]) | UInt16(bytes[offset + 17]) << 8
            let code = UInt16(bytes[offset + 18]) | UInt16(bytes[offset + 19]) << 8
            let value = Int32(bitPattern: UInt32(bytes[offset + 20]) | UInt32(bytes[offset + 21]) << 8
                              | UInt32(bytes[offset + 22]) << 16 | UInt32(bytes[offset + 23]) << 24)
            switch type {
            case 0 where code == 0:                   // EV_SYN SYN_REPORT: a report ends
                if active { count += 1 }
                active = false
                consumed = offset + recordSize
            case 1 where value == 1: active = true   // EV_KEY pressed (not released, not repeated)
            case 2, 3: active = true                 // EV_REL, EV_ABS: a movement
            default: break                           // EV_MSC (scan codes), LEDs, …
            }
            offset += recordSize
        }
        // Wipe what was counted; keep the unfinished rest for the next read.
        for i in 0..<consumed { bytes[i] = 0 }
        bytes.removeFirst(consumed)
        return count
    }

    /// Every `eventN` the kernel lists, with what it and udev say of it.
    static func devices(in folders: Folders) -> [Device] {
        guard let dir = opendir(folders.sysfs) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasPrefix("event") { names.append(name) }
        }
        return names.sorted().map { name in
            let folder = folders.sysfs + "/" + name
            let real = Glibc.realpath(folder + "/device", nil).map { p in defer { free(p) }; return String(cString: p) } ?? ""
            let number = String(decoding: ProcFS.contents(of: folder + "/dev") ?? [], as: UTF8.self)
                .filter { !$0.isWhitespace }
            var properties: [String: String] = [:]
            let text = String(decoding: ProcFS.contents(of: folders.udev + "/c" + number) ?? [], as: UTF8.self)
            for line in text.split(separator: "\n") where line.hasPrefix("E:") {
                let pair = line.dropFirst(2).split(separator: "=", maxSplits: 1)
                if pair.count == 2 { properties[String(pair[0])] = String(pair[1]) }
            }
            let personal = ["ID_INPUT_KEYBOARD", "ID_INPUT_MOUSE", "ID_INPUT_TOUCHPAD", "ID_INPUT_TOUCHSCREEN", "ID_INPUT_TABLET"]
                .contains { properties[$0] == "1" }
            return Device(name: name, seat: properties["ID_SEAT"] ?? "seat0", virtual: real.isEmpty || real.contains("/devices/virtual/"),
                          personal: personal)
        }
    }
}
