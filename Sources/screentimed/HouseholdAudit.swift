import ControlProtocol
import ScreenTimeCore
import ScreenTimeStore

/// `screentimed check --household`: this computer's state against the family ledger (docs/household.md).
/// Every entry the family ledger has from this computer is in this state (traced by its origin:
/// the entry's hash here, or the family's number a redemption was paid as); every entry of this
/// state the family ledger should have by now (up to what was sent) is there; every entry this
/// state mirrored from another computer is the family's entry of that number, as it is there.
enum HouseholdAudit {
    struct Problem: Error, CustomStringConvertible { var description: String }

    /// Nil when all holds; else the first problem, in words.
    static func problem(local: [StoredLedgerEntry], marks: Store.HouseholdMarks, family: [HouseholdMessage.Row], machine: String) -> String? {
        let hashes = Set(local.map(\.hash))
        let paidHere = Set(local.compactMap { $0.entry.machine == nil ? $0.entry.familySeq : nil })
        let bySeq = Dictionary(family.map { ($0.seq, $0) }, uniquingKeysWith: { a, _ in a })
        let origins = Set(family.filter { $0.machine == machine }.map(\.origin))
        for row in family where row.machine == machine {
            let traced = row.origin.hasPrefix("entry:") ? hashes.contains(String(row.origin.dropFirst(6)))
                : paidHere.contains(row.seq) || local.contains { $0.entry.familySeq == row.seq }
            if !traced {
                return "the family ledger's entry \(row.seq) (\(row.kind), \(row.points) points, origin \(row.origin)) says this computer (\(machine)) wrote it, but this state has no such entry"
            }
        }
        for e in local {
            if let other = e.entry.machine {
                guard let seq = e.entry.familySeq, let row = bySeq[seq] else {
                    return "entry \(e.seq) here was mirrored from \(other)'s entry \(e.entry.familySeq.map(String.init) ?? "?"), which the family ledger does not have"
                }
                guard row.points == e.entry.points, row.kind == e.entry.kind.rawValue else {
                    return "entry \(e.seq) here (\(e.entry.kind.rawValue), \(e.entry.points) points) differs from the family ledger's entry \(seq) it mirrors (\(row.kind), \(row.points) points)"
                }
            } else if let seq = e.entry.familySeq {
                guard let row = bySeq[seq], row.machine == machine, row.points == e.entry.points else {
                    return "entry \(e.seq) here was paid by the family ledger as its entry \(seq), which is not this computer's payment of \(-e.entry.points) points there"
                }
            } else if e.seq <= marks.sentThrough, !origins.contains("entry:" + e.hash) {
                return "entry \(e.seq) here (\(e.entry.kind.rawValue), \(e.entry.points) points) was sent to the family ledger, which does not have it"
            }
        }
        return nil
    }
}
