extension Array where Element == Diagnostic {
    /// The findings about a file that holds numbers no Swift number can (the `numberProblems` of
    /// ``JSONDocument/parseKeepingNumberProblems(_:file:)``): these findings of its decoder, less those at such a
    /// number (the decoder read it clamped or non-finite, so they are about another value), with the number problems,
    /// in file order. These findings as they are when there are no number problems.
    public func replacingFindings(at numberProblems: [Diagnostic]) -> [Diagnostic] {
        guard !numberProblems.isEmpty else { return self }
        let pointers = Set(numberProblems.map(\.pointer))
        return (filter { !pointers.contains($0.pointer) } + numberProblems).sortedByLocation()
    }
}
