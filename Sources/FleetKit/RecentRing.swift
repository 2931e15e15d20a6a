/// The last `capacity` values appended, oldest first: a device's recent uploads and states.
struct RecentRing<Element: Sendable>: Sendable {
    /// Oldest first.
    private(set) var elements: [Element] = []
    let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
    }

    mutating func append(_ element: Element) {
        if elements.count >= capacity { elements.removeFirst(elements.count - capacity + 1) }
        elements.append(element)
    }

    /// The newest value.
    var last: Element? { elements.last }
}
