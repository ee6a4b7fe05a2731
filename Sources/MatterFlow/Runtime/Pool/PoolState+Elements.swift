import MatterFlowJSON

extension PoolState {
    // A map state that runs elements at once has each running element held as an entry of its own, with its own
    // machine (``RunMachine/init(element:configuration:secrets:)``), hub work and abandoned calls, as a single run's
    // element has a driver of its own. The element's end is fed to the entry whose map started it
    // (``RunMachine/elementEnded(_:)``), whose orders start and cancel the next ones.

    /// Starts an element of a concurrent map state as an entry of its own, with a machine of its own sharing the
    /// run's configuration and secrets; it is fed its start after the input that started it.
    mutating func startElement(_ launch: ElementLaunch, of number: Int, _ entry: PoolEntry) {
        let machine = launch.resumed ?? RunMachine(element: launch, configuration: entry.machine.configuration, secrets: entry.machine.secrets)
        nextNumber += 1
        elementCount += 1
        runs[nextNumber] = PoolEntry(
            machine: machine, structure: entry.structure, listens: false, answers: [:], parent: (number, launch.index),
            observer: entry.observer)
        entry.elements[launch.index] = nextNumber
        if let recording = recordings[number] { recordings[nextNumber] = recording.recording(forElement: launch.element) }
        inputs.append((nextNumber, .start))
    }

    /// Cancels an element: its machine is fed the cancel, and the hub work it has in flight is stopped (its signal
    /// fired once the lock is released); its end is then fed as cancelled. `reason` is the run's, when the run's
    /// cancel is what cancels it.
    mutating func cancel(_ element: Int, reason: String?, effects: inout PoolEffects) {
        guard let entry = runs[element] else { return }
        if case .working(let signal) = entry.waiting { effects.cancels.append(signal) }
        inputs.append((element, .cancel(reason: reason)))
    }

    /// An element has ended: its end goes to the entry whose map started it, once the calls it abandoned have ended.
    mutating func elementEnded(_ number: Int, _ entry: PoolEntry, parent: (number: Int, index: Int), _ result: RunResult, effects: inout PoolEffects) {
        runs[number] = nil
        let recording = recordings.removeValue(forKey: number)
        elementCount -= 1
        runs[parent.number]?.elements[parent.index] = nil
        let machine = entry.machine
        let end = ElementEnd(parent.index, of: machine.element ?? machine.workflowName, result: result, warnings: result.warnings, calls: machine.callCount)
        if let abandoned = entry.abandoned, !abandoned.isEmpty {
            effects.settles.append(
                PoolElementSettle(
                    parent: parent.number, end: end, abandoned: abandoned, machine: machine, recording: recording,
                    runObserver: entry.observer))
        } else {
            inputs.append((parent.number, .elementEnded(end)))
        }
    }
}
