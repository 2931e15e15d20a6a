/// The last `capacity` values appended, oldest first: a device's recent uploads and states.
package struct RecentRing<Element: Sendable>: Sendable {
    /// Oldest first.
    private(set) var elements: [Element] = []
    let capacity: Int
    /// Values appended so far, dropped ones included: the number the next value gets.
    private(set) var appended = 0

    package init(capacity: Int) {
        self.capacity = capacity
    }

    package mutating func append(_ element: Element) {
        if elements.count >= capacity { elements.removeFirst(elements.count - capacity + 1) }
        elements.append(element)
        appended += 1
    }

    /// Changes the value appended as number `number` (see `appended`); false when there is no
    /// such value (not appended yet, or dropped).
    @discardableResult
    mutating func update(appended number: Int, _ change: (inout Element) -> Void) -> Bool {
        let index = elements.count - (appended - number)
        guard number < appended, index >= 0 else { return false }
        change(&elements[index])
        return true
    }

    /// The newest value.
    var last: Element? { elements.last }
}
