import FoundationEssentials
import Glibc
import ScreenTimeCore
import ScreenTimeLinux

/// The sway desktop hook (`stctl hook sway`): follows the focused window through sway's IPC
/// (`$SWAYSOCK`: the i3 IPC framing; the `window` and `workspace` events, and `GET_TREE` once for the start)
/// and reports it; returns when sway goes away. Idle comes from logind, or from `swayidle`
/// calling `stctl hook event`.
public struct SwayHook {
    public let swaySocket: String
    public let client: HookClient

    public init(swaySocket: String, client: HookClient) {
        self.swaySocket = swaySocket
        self.client = client
    }

    public struct Failure: Error, CustomStringConvertible { public var description: String }

    enum MessageType: UInt32 { case subscribe = 2, getTree = 4 }

    /// Runs until sway closes its socket.
    public func run() throws {
        let ipc: UnixConnection
        do { ipc = try UnixConnection.connect(path: swaySocket) } catch {
            throw Failure(description: "cannot reach sway at \(swaySocket): \(error.description)")
        }
        var messages = SwayMessages()
        func next() -> (type: UInt32, body: JSONValue?)? {
            while true {
                if let m = messages.next() { return (m.type, try? JSONLineReader.parse(String(decoding: m.payload, as: UTF8.self))) }
                guard let bytes = ipc.read() else { return nil }
                messages.append(bytes)
            }
        }
        // Subscribed first, then the tree asked for: the other way round, a window focused
        // between the two (one starting as the hook starts) would be missed until the next
        // focus change. Sway answers in order, so the events before the tree's answer are older
        // than the tree, and the tree's focus is reported after them.
        guard ipc.write(SwayMessages.frame(.subscribe, #"["window","workspace"]"#)),
              ipc.write(SwayMessages.frame(.getTree, "")) else { return }
        while let m = next() {
            if m.type == MessageType.getTree.rawValue {
                try report(m.body.flatMap(SwayHook.focusedWindow(in:)))
                continue
            }
            guard m.type & 0x8000_0000 != 0, let body = m.body else { continue }
            switch (m.type & 0x7FFF_FFFF, body["change"]?.string) {
            case (3, "focus"), (3, "title"):
                if let c = body["container"], c["focused"]?.bool == true { try report(c) }
            case (3, "close"):
                if let c = body["container"], c["focused"]?.bool == true { try client.focused(pid: nil, appID: nil, title: nil) }
            case (0, "focus"):
                // A workspace with no window in it: nothing is focused.
                if let ws = body["current"], (ws["nodes"]?.array ?? []).isEmpty, (ws["floating_nodes"]?.array ?? []).isEmpty {
                    try client.focused(pid: nil, appID: nil, title: nil)
                }
            default: break
            }
        }
    }

    private func report(_ window: JSONValue?) throws {
        guard let w = window else { return try client.focused(pid: nil, appID: nil, title: nil) }
        let appID = w["app_id"]?.string ?? w["window_properties"]?["class"]?.string
        try client.focused(pid: w["pid"]?.int.map { Int32(truncatingIfNeeded: $0) }, appID: appID, title: w["name"]?.string)
    }

    /// The focused window of a `GET_TREE` answer (a node with a pid), if any.
    static func focusedWindow(in node: JSONValue) -> JSONValue? {
        if node["focused"]?.bool == true, node["pid"]?.int != nil { return node }
        for key in ["nodes", "floating_nodes"] {
            for child in node[key]?.array ?? [] {
                if let found = focusedWindow(in: child) { return found }
            }
        }
        return nil
    }
}

/// The i3/sway IPC framing: "i3-ipc", payload length and type (little-endian), payload.
struct SwayMessages {
    private var buffer: [UInt8] = []
    static let magic = Array("i3-ipc".utf8)

    static func frame(_ type: SwayHook.MessageType, _ payload: String) -> [UInt8] {
        let body = Array(payload.utf8)
        return magic + le(UInt32(body.count)) + le(type.rawValue) + body
    }

    static func le(_ v: UInt32) -> [UInt8] { [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF), UInt8((v >> 16) & 0xFF), UInt8(v >> 24)] }

    mutating func append(_ bytes: [UInt8]) { buffer += bytes }

    mutating func next() -> (type: UInt32, payload: [UInt8])? {
        guard buffer.count >= 14 else { return nil }
        func u32(_ at: Int) -> UInt32 { (0..<4).reduce(0) { $0 | UInt32(buffer[at + $1]) << (8 * $1) } }
        let length = Int(u32(6)), type = u32(10)
        guard buffer.count >= 14 + length else { return nil }
        let payload = Array(buffer[14..<(14 + length)])
        buffer.removeFirst(14 + length)
        return (type, payload)
    }
}

extension JSONValue {
    subscript(key: String) -> JSONValue? {
        if case .object(let fields) = self { return fields.first { $0.0 == key }?.1 }
        return nil
    }
    var string: String? { if case .string(let s) = self { return s } else { return nil } }
    var bool: Bool? { if case .bool(let b) = self { return b } else { return nil } }
    var int: Int64? { if case .number(let n) = self { return n.int64 } else { return nil } }
    var array: [JSONValue]? { if case .array(let a) = self { return a } else { return nil } }
}
