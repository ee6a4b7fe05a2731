import Testing

@testable import MatterFlow

/// The error analyses number each possible error once per load and route them as bits: what a route's names take
/// must be what matching each error by name would take, including errors numbered after the name was first asked
/// about (a fail state's own code, met in a later file of the load).
@Suite struct PossibleErrorTableTests {
    @Test func aNamesMatchesCoverErrorsNumberedAfterItWasFirstAsked() {
        let table = PossibleErrorTable(catalog: .standard)
        let offline = table.number(of: .hubOffline)
        #expect(table.mayMatch("unavailable").contains(offline))
        #expect(table.certainlyMatches("hubOffline").contains(offline))
        // An error first met later, with the same code and a cause of its own.
        let custom = table.number(of: PossibleError(code: "unavailable", cause: "bridgeAsleep"))
        #expect(table.mayMatch("unavailable").contains(custom))
        #expect(table.certainlyMatches("unavailable").contains(custom))
        #expect(!table.mayMatch("hubOffline").contains(custom))
        // A code with an unknown cause may be any cause of that code, but is certainly none of them.
        let unknownCause = table.number(of: PossibleError(code: "unavailable", cause: nil))
        #expect(table.mayMatch("hubOffline").contains(unknownCause))
        #expect(!table.certainlyMatches("hubOffline").contains(unknownCause))
    }

    @Test func partitionTakesFirstMatchesAndKeepsWhatNoEntryIsSureToTake() {
        let table = PossibleErrorTable(catalog: .standard)
        let offline = table.number(of: .hubOffline)
        let unreachable = table.number(of: .hubUnreachable)
        let busy = table.number(of: .sessionBusy)
        let unknownCause = table.number(of: PossibleError(code: "unavailable", cause: nil))
        let errors = ErrorSet([offline, unreachable, busy, unknownCause])
        let (taken, remaining) = table.partition(errors, by: [["hubOffline"], ["unavailable"], ["sessionBusy"]])
        #expect(taken == [ErrorSet([offline, unknownCause]), ErrorSet([unreachable, unknownCause]), ErrorSet([busy])])
        #expect(remaining.isEmpty)
        #expect(table.partition(errors, by: [["hubOffline"]]).remaining == ErrorSet([unreachable, busy, unknownCause]))
        // Spelled out sorted by code, then cause, whatever the numbers.
        #expect(table.listed(ErrorSet([offline, busy])) == "failedPrecondition/sessionBusy, unavailable/hubOffline")
    }
}
