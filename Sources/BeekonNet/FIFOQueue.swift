/// A first-in, first-out queue whose taking is O(1): taken elements are skipped by a head index
/// and the array compacted once they are most of it. (A request queue wants this; Foundation has
/// no deque.)
public struct FIFOQueue<Element> {
    private var elements: [Element] = []
    private var head = 0

    public init() {}

    public var isEmpty: Bool { head == elements.count }
    public var count: Int { elements.count - head }
    /// The oldest element, left in place.
    public var first: Element? { isEmpty ? nil : elements[head] }

    public mutating func append(_ element: Element) {
        elements.append(element)
    }

    public mutating func append(contentsOf more: [Element]) {
        elements += more
    }

    /// The oldest element, taken out.
    public mutating func popFirst() -> Element? {
        guard head < elements.count else { return nil }
        let element = elements[head]
        head += 1
        compact()
        return element
    }

    /// The oldest element that `matches`, taken out from wherever it stands.
    public mutating func remove(firstWhere matches: (Element) -> Bool) -> Element? {
        guard let index = elements[head...].firstIndex(where: matches) else { return nil }
        return elements.remove(at: index)
    }

    /// Every element, oldest first, taken out.
    public mutating func removeAll() -> [Element] {
        defer {
            elements = []
            head = 0
        }
        return Array(elements[head...])
    }

    private mutating func compact() {
        if head == elements.count {
            elements.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 1024, head * 2 > elements.count {
            elements.removeFirst(head)
            head = 0
        }
    }
}
