import MatterFlowJSON

extension RunDriver {
    /// Runs a concurrent map state's elements until the map ends, and returns the work the map's end hands over.
    ///
    /// Each element runs in a child task as a machine of its own (``RunMachine/init(element:configuration:secrets:)``),
    /// driven by a driver of its own: its own cancel signal (fired by the run's, or by a `cancelElement` order), its
    /// own abandoned calls, the run's hub, clock, events and recording. Each element's end is fed to
    /// ``RunMachine/elementEnded(_:)``, whose orders start and cancel elements, until the map's machine hands over
    /// other work. On virtual time, this task is idle while it waits for an element, and each element's end wakes
    /// it (``WorkflowClock/beginActivity()`` on its behalf).
    /// - Parameter orders: The element orders of the input that began the map; on return, those of the input that
    ///   ended it.
    func runElements(_ machine: inout RunMachine, orders: inout [RunAction]) async throws(RunMachineError) -> RunAction {
        let clock = options.clock
        let outcome = await withTaskGroup(of: ElementEnd.self, returning: Result<RunAction, RunMachineError>.self) { group in
            var signals: [Int: (signal: CancellationSignal, token: Int)] = [:]
            defer {
                for (_, element) in signals {
                    self.signal.remove(element.token)
                    element.signal.cancel()
                }
            }
            while true {
                for order in orders {
                    switch order {
                    case .startElement(let launch):
                        let elementSignal = CancellationSignal()
                        let token = signal.onCancel { elementSignal.cancel() }
                        signals[launch.index] = (elementSignal, token)
                        let configuration = machine.configuration
                        let secrets = machine.secrets
                        clock.beginActivity()
                        group.addTask {
                            let end = await runElement(launch, signal: elementSignal, configuration: configuration, secrets: secrets)
                            // The map's task, waiting for this end, is woken to work.
                            clock.beginActivity()
                            clock.endActivity()
                            return end
                        }
                    case .cancelElement(let index):
                        signals[index]?.signal.cancel()
                    case .report, .checkpoint, .interruptWork, .proceed, .checkStatus, .call, .delay, .waitForEvent, .askQuestion,
                        .awaitElements, .finish:
                        break
                    }
                }
                orders = []
                if signal.isCancelled, !machine.isCancelRequested {
                    _ = perform(machine.cancelRequested(), orders: &orders)
                    if !orders.isEmpty { continue }
                }
                clock.endActivity()
                guard let ended = await group.next() else {
                    clock.beginActivity()
                    return .failure(RunMachineError(code: .impossibleInput, phase: machine.phaseName, input: "awaiting elements, none running"))
                }
                if let element = signals.removeValue(forKey: ended.index) { signal.remove(element.token) }
                let actions: RunActions
                do throws(RunMachineError) {
                    actions = try machine.elementEnded(ended)
                } catch {
                    return .failure(error)
                }
                guard let work = perform(actions, orders: &orders) else {
                    return .failure(RunMachineError(code: .impossibleInput, phase: machine.phaseName, input: "an element's end without next work"))
                }
                if case .awaitElements = work { continue }
                return .success(work)
            }
        }
        return try outcome.get()
    }

    /// Drives one element's machine to its end, then waits for the element's abandoned calls (each wait a warning),
    /// so that the map never ends while one of its elements' calls still runs on the hub.
    private func runElement(
        _ launch: ElementLaunch, signal elementSignal: CancellationSignal, configuration: RunMachine.Configuration, secrets: SecretValues
    ) async -> ElementEnd {
        var machine = launch.resumed ?? RunMachine(element: launch, configuration: configuration, secrets: secrets)
        var elementOptions = options
        elementOptions.recording = options.recording?.recording(forElement: launch.element)
        let driver = RunDriver(hub: hub, options: elementOptions, runID: runID, signal: elementSignal, inbox: inbox, desk: desk)
        let result = await driver.run(&machine)
        var warnings = result.warnings
        if !driver.abandoned.isEmpty {
            await driver.abandoned.settle { report in
                let message = Self.message(report)
                warnings.append(message)
                driver.report(.warning(state: machine.top.current, message: message), machine)
            }
        }
        let end: RunMachine.LevelEnd
        let missing = FlowError(.engineMisconfigured, "element \(launch.index) of map state \(launch.element) ended without an error")
        switch result.outcome {
        case .succeeded: end = .succeeded(result.output)
        case .failed: end = .failed(result.error ?? missing)
        case .cancelled: end = .cancelled(result.error ?? missing)
        }
        return ElementEnd(index: launch.index, end: end, visited: result.visitedStates, warnings: warnings)
    }
}
