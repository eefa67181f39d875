import ControlProtocol

/// A request sent again with the same id (stctl makes one, a UUID, for each command; a retry
/// after a lost answer sends it again): answered as the first time, never carried out twice
/// (docs/family.md). The state keeps each request carried out with its answer; this decides what a
/// request with an id gets, before anything is counted or kept.
public enum RequestRepeat {
    /// The longest request id taken (a UUID is 36 characters).
    public static let maxID = 128

    /// What a request with an id gets.
    public enum Verdict: Sendable, Equatable {
        /// Carry it out (no id, or one this caller has not used).
        case new
        /// Answer again with what it got the first time; nothing is carried out.
        case again(ControlReply)
        /// Refused; nothing is carried out.
        case refused(Why)
    }

    /// `id`: the request's id (nil: an older client, which sends none); `asked`: the request in
    /// words, as kept; `lookup`: what the state kept for this caller's id (the request in words,
    /// and the answer's line), asked only for a well-formed id.
    public static func judge(id: String?, asked: String,
                             lookup: (String) throws -> (request: String, reply: String)?) rethrows -> Verdict {
        guard let id else { return .new }
        guard !id.isEmpty, id.utf8.count <= maxID else {
            return .refused(Why(.requestIDLength, ["most": "\(maxID)"]))
        }
        guard let before = try lookup(id) else { return .new }
        guard before.request == asked else {
            return .refused(Why(.requestIDReused, ["id": id, "before": before.request]))
        }
        return .again((try? ControlProtocol.decode(ControlReply.self, from: Array(before.reply.utf8)))
            ?? .refused(.requestAnswerLost, ["id": id]))
    }
}
