/// What the session proofs know of a level's tracked variables (those some choice tests with `exists`): for each,
/// by its number in its node (``SessionExplorer/Node/tracked``), that it exists, that it does not, or nothing.
///
/// Every configuration the walk finds holds one, and it is copied, compared and hashed with it: as bits, that
/// costs a word or two and no allocation.
struct VariableFacts: Hashable {
    /// The variables whose existence is known.
    private var known = NumberSet()
    /// Of those, the ones that exist.
    private var existing = NumberSet()

    init() {}

    /// Whether variable `number` exists; nil when that is not known.
    subscript(number: Int) -> Bool? {
        get { known.contains(number) ? existing.contains(number) : nil }
        set {
            guard let newValue else {
                known.remove(number)
                existing.remove(number)
                return
            }
            known.insert(number)
            if newValue { existing.insert(number) } else { existing.remove(number) }
        }
    }
}
