import CSystemd
import Glibc
import ScreenTimeLinux

/// A D-Bus problem, said plainly.
public struct BusError: Error, CustomStringConvertible, Sendable {
    public var description: String
    init(_ description: String) { self.description = description }
    init(_ what: String, code: Int32) { description = "\(what): \(String(cString: strerror(-code)))" }
}

/// A value read from, or written into, a D-Bus message.
public indirect enum BusValue: Sendable, Equatable {
    case bool(Bool)
    case byte(UInt8)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(String)
    case array(element: String, [BusValue])
    case structure([BusValue])
    case dictEntry(BusValue, BusValue)
    case variant(BusValue)
    /// A type this reader does not turn into a value (a file descriptor, a signature).
    case unsupported(Character)

    public var bool: Bool? { if case .bool(let b) = unwrapped { return b } else { return nil } }
    public var uint32: UInt32? { if case .uint32(let v) = unwrapped { return v } else { return nil } }
    public var uint64: UInt64? { if case .uint64(let v) = unwrapped { return v } else { return nil } }
    public var string: String? {
        switch unwrapped {
        case .string(let s), .objectPath(let s): return s
        default: return nil
        }
    }
    public var elements: [BusValue] {
        switch unwrapped {
        case .array(_, let items), .structure(let items): return items
        default: return []
        }
    }
    /// An `a{s…}` as a dictionary; variants unwrapped.
    public var dictionary: [String: BusValue] {
        var out: [String: BusValue] = [:]
        for case .dictEntry(let k, let v) in elements { if let key = k.string { out[key] = v.unwrapped } }
        return out
    }
    public var unwrapped: BusValue { if case .variant(let v) = self { return v.unwrapped } else { return self } }

    /// The D-Bus signature of this value (for appending).
    var signature: String {
        switch self {
        case .bool: return "b"
        case .byte: return "y"
        case .int32: return "i"
        case .uint32: return "u"
        case .int64: return "x"
        case .uint64: return "t"
        case .double: return "d"
        case .string: return "s"
        case .objectPath: return "o"
        case .array(let element, _): return "a" + element
        case .structure(let items): return "(" + items.map(\.signature).joined() + ")"
        case .dictEntry(let k, let v): return "{" + k.signature + v.signature + "}"
        case .variant: return "v"
        case .unsupported(let c): return String(c)
        }
    }
}

/// One D-Bus message (a reply or a signal), read once into values.
public struct BusMessage: Sendable {
    public var sender: String?
    public var path: String?
    public var interface: String?
    public var member: String?
    public var arguments: [BusValue]

    init(_ m: OpaquePointer) {
        sender = sd_bus_message_get_sender(m).map { String(cString: $0) }
        path = sd_bus_message_get_path(m).map { String(cString: $0) }
        interface = sd_bus_message_get_interface(m).map { String(cString: $0) }
        member = sd_bus_message_get_member(m).map { String(cString: $0) }
        arguments = BusMessage.readAll(m)
    }

    /// Reads the values up to the end of the current container.
    private static func readAll(_ m: OpaquePointer) -> [BusValue] {
        var out: [BusValue] = []
        while true {
            var type: CChar = 0
            var contents: UnsafePointer<CChar>? = nil
            guard sd_bus_message_peek_type(m, &type, &contents) > 0 else { return out }
            let t = Character(UnicodeScalar(UInt8(bitPattern: type)))
            switch t {
            case "a", "r", "e", "v":
                let inner = contents.map { String(cString: $0) } ?? ""
                guard sd_bus_message_enter_container(m, type, contents) >= 0 else { return out }
                let items = readAll(m)
                _ = sd_bus_message_exit_container(m)
                switch t {
                case "a": out.append(.array(element: inner, items))
                case "r": out.append(.structure(items))
                case "e": out.append(items.count == 2 ? .dictEntry(items[0], items[1]) : .structure(items))
                default: out.append(.variant(items.first ?? .unsupported("v")))
                }
            default:
                guard let v = readBasic(m, type) else { return out }
                out.append(v)
            }
        }
    }

    private static func readBasic(_ m: OpaquePointer, _ type: CChar) -> BusValue? {
        func read<T: BitwiseCopyable>(_ initial: T) -> T? {
            var v = initial
            let r = withUnsafeMutableBytes(of: &v) { sd_bus_message_read_basic(m, type, $0.baseAddress) }
            return r > 0 ? v : nil
        }
        switch Character(UnicodeScalar(UInt8(bitPattern: type))) {
        case "b": return read(Int32(0)).map { .bool($0 != 0) }
        case "i": return read(Int32(0)).map { .int32($0) }
        case "u": return read(UInt32(0)).map { .uint32($0) }
        case "x": return read(Int64(0)).map { .int64($0) }
        case "t": return read(UInt64(0)).map { .uint64($0) }
        case "d": return read(Double(0)).map { .double($0) }
        case "y": return read(UInt8(0)).map { .uint32(UInt32($0)) }
        case "n": return read(Int16(0)).map { .int32(Int32($0)) }
        case "q": return read(UInt16(0)).map { .uint32(UInt32($0)) }
        case "s", "o", "g":
            var p: UnsafePointer<CChar>? = nil
            guard sd_bus_message_read_basic(m, type, &p) > 0, let p else { return nil }
            return type == CChar(UInt8(ascii: "o")) ? .objectPath(String(cString: p)) : .string(String(cString: p))
        case "h": return read(Int32(0)).map { _ in .unsupported("h") }
        default: return nil
        }
    }
}

/// A connection to a D-Bus bus through sd-bus; every sd-bus call of the project is here.
/// Owned by one thread (the daemon's loop): signals are delivered from `process()`.
public final class Bus: @unchecked Sendable {
    public enum Kind: Sendable { case system, user }

    private let bus: OpaquePointer
    private var slots: [OpaquePointer] = []
    private var handlers: [Unmanaged<Handler>] = []
    private var servers: [Unmanaged<Server>] = []

    private final class Handler {
        let body: (BusMessage) -> Void
        init(_ body: @escaping (BusMessage) -> Void) { self.body = body }
    }

    /// Connects to the system or the user's session bus: `address` when given, else where sd-bus
    /// looks (`DBUS_SYSTEM_BUS_ADDRESS`, `DBUS_SESSION_BUS_ADDRESS`, the standard sockets).
    public init(_ kind: Kind, address: String? = nil) throws(BusError) {
        var b: OpaquePointer? = nil
        var r: Int32
        if let address {
            r = sd_bus_new(&b)
            if r >= 0, let b {
                r = sd_bus_set_address(b, address)
                if r >= 0 { r = sd_bus_set_bus_client(b, 1) }
                if r >= 0 { r = sd_bus_start(b) }
                if r < 0 { sd_bus_unref(b) }
            }
        } else {
            r = kind == .system ? sd_bus_open_system(&b) : sd_bus_open_user(&b)
        }
        guard r >= 0, let b else {
            let from = address ?? (kind == .system
                ? getenv("DBUS_SYSTEM_BUS_ADDRESS").map { String(cString: $0) } ?? "unix:path=/run/dbus/system_bus_socket"
                : getenv("DBUS_SESSION_BUS_ADDRESS").map { String(cString: $0) } ?? "the user's bus")
            throw BusError("cannot connect to the \(kind == .system ? "system" : "session") bus at \(from)", code: r)
        }
        bus = b
    }

    deinit {
        for s in slots { sd_bus_slot_unref(s) }
        for h in handlers { h.release() }
        for s in servers { s.release() }
        sd_bus_flush_close_unref(bus)
    }

    /// The descriptor to poll, and whether to poll it for writing too.
    public var descriptor: Int32 { sd_bus_get_fd(bus) }
    public var wantsWrite: Bool { (sd_bus_get_events(bus) & Int32(POLLOUT)) != 0 }

    /// Handles everything that arrived (signal handlers run here). Throws when the connection is gone.
    public func process() throws(BusError) {
        while true {
            let r = sd_bus_process(bus, nil)
            if r < 0 { throw BusError("the bus connection was lost", code: r) }
            if r == 0 { return }
        }
    }

    /// Calls a method and waits for its reply (at most `timeout` microseconds).
    public func call(_ destination: String, _ path: String, _ interface: String, _ member: String,
                     _ arguments: [BusValue] = [], timeout: UInt64 = 2_000_000) throws(BusError) -> BusMessage {
        var m: OpaquePointer? = nil
        var r = sd_bus_message_new_method_call(bus, &m, destination, path, interface, member)
        guard r >= 0, let m else { throw BusError("\(interface).\(member): cannot make the call", code: r) }
        defer { sd_bus_message_unref(m) }
        for a in arguments {
            r = Bus.append(a, to: m)
            guard r >= 0 else { throw BusError("\(interface).\(member): cannot add an argument", code: r) }
        }
        var error = sd_bus_error()
        defer { sd_bus_error_free(&error) }
        var reply: OpaquePointer? = nil
        r = sd_bus_call(bus, m, timeout, &error, &reply)
        guard r >= 0, let reply else {
            let why = error.message.map { String(cString: $0) } ?? String(cString: strerror(-r))
            throw BusError("\(destination) \(interface).\(member): \(why)")
        }
        defer { sd_bus_message_unref(reply) }
        return BusMessage(reply)
    }

    /// Runs `body` for every message matching `rule` (a D-Bus match rule), from `process()`.
    public func onMessages(matching rule: String, _ body: @escaping (BusMessage) -> Void) throws(BusError) {
        let handler = Unmanaged.passRetained(Handler(body))
        var slot: OpaquePointer? = nil
        let r = sd_bus_add_match(bus, &slot, rule, { m, userdata, _ in
            guard let m, let userdata else { return 0 }
            Unmanaged<Handler>.fromOpaque(userdata).takeUnretainedValue().body(BusMessage(m))
            return 0
        }, handler.toOpaque())
        guard r >= 0, let slot else {
            handler.release()
            throw BusError("cannot follow \(rule)", code: r)
        }
        slots.append(slot)
        handlers.append(handler)
    }

    /// What a served method answers: values to return, or a D-Bus error (its name and a message).
    public enum MethodReply: Sendable {
        case values([BusValue])
        case error(name: String, message: String)
    }

    private final class Server {
        let body: (BusMessage) -> MethodReply?
        init(_ body: @escaping (BusMessage) -> MethodReply?) { self.body = body }
    }

    /// Serves the method calls sent to the object at `path`, from `process()`: `body` answers each
    /// one, or gives nil for a method it does not have (the caller is then told it is unknown).
    public func serve(path: String, _ body: @escaping (BusMessage) -> MethodReply?) throws(BusError) {
        let server = Unmanaged.passRetained(Server(body))
        var slot: OpaquePointer? = nil
        let r = sd_bus_add_object(bus, &slot, path, { m, userdata, _ in
            guard let m, let userdata else { return 0 }
            guard let answer = Unmanaged<Server>.fromOpaque(userdata).takeUnretainedValue().body(BusMessage(m)) else { return 0 }
            return Bus.reply(to: m, answer)
        }, server.toOpaque())
        guard r >= 0, let slot else {
            server.release()
            throw BusError("cannot serve \(path)", code: r)
        }
        slots.append(slot)
        servers.append(server)
    }

    /// Sends the answer to a method call; 1 (handled) for sd-bus, or its error.
    private static func reply(to call: OpaquePointer, _ answer: MethodReply) -> Int32 {
        switch answer {
        case .values(let values):
            var m: OpaquePointer? = nil
            var r = sd_bus_message_new_method_return(call, &m)
            guard r >= 0, let m else { return r }
            defer { sd_bus_message_unref(m) }
            for v in values {
                r = append(v, to: m)
                guard r >= 0 else { return r }
            }
            r = sd_bus_send(nil, m, nil)
            return r < 0 ? r : 1
        case .error(let name, let message):
            var error = sd_bus_error()
            defer { sd_bus_error_free(&error) }
            _ = sd_bus_error_set(&error, name, message)
            let r = sd_bus_reply_method_error(call, &error)
            return r < 0 ? r : 1
        }
    }

    /// Takes the well-known `name` on this bus; fails when another connection owns it.
    public func requestName(_ name: String) throws(BusError) {
        let r = sd_bus_request_name(bus, name, 0)
        if r == -EEXIST { throw BusError("\(name) is taken by another program on this bus") }
        guard r >= 0 else { throw BusError("cannot take the name \(name)", code: r) }
    }

    /// The unique name of the connection that owns `name` now, or nil when none does.
    public func owner(of name: String) -> String? {
        (try? call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetNameOwner", [.string(name)]))?.arguments.first?.string
    }

    private static func append(_ value: BusValue, to m: OpaquePointer) -> Int32 {
        func basic<T: BitwiseCopyable>(_ type: Character, _ v: T) -> Int32 {
            withUnsafeBytes(of: v) { sd_bus_message_append_basic(m, CChar(type.asciiValue!), $0.baseAddress) }
        }
        switch value {
        case .bool(let b): return basic("b", Int32(b ? 1 : 0))
        case .byte(let v): return basic("y", v)
        case .int32(let v): return basic("i", v)
        case .uint32(let v): return basic("u", v)
        case .int64(let v): return basic("x", v)
        case .uint64(let v): return basic("t", v)
        case .double(let v): return basic("d", v)
        case .string(let s), .objectPath(let s):
            let type = CChar(value.signature.utf8.first!)
            return s.withCString { sd_bus_message_append_basic(m, type, $0) }
        case .array(let element, let items):
            return container(m, "a", element, items)
        case .structure(let items):
            return container(m, "r", items.map(\.signature).joined(), items)
        case .dictEntry(let k, let v):
            return container(m, "e", k.signature + v.signature, [k, v])
        case .variant(let inner):
            return container(m, "v", inner.signature, [inner])
        case .unsupported:
            return -EINVAL
        }
    }

    private static func container(_ m: OpaquePointer, _ type: Character, _ contents: String, _ items: [BusValue]) -> Int32 {
        var r = sd_bus_message_open_container(m, CChar(type.asciiValue!), contents)
        guard r >= 0 else { return r }
        for item in items {
            r = append(item, to: m)
            guard r >= 0 else { return r }
        }
        return sd_bus_message_close_container(m)
    }
}
