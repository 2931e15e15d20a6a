/// The name a user most likely meant by a misspelt one (`spred` → `spread`), as git and cargo
/// suggest: the known name nearest by edit distance (insert, delete, substitute or swap two
/// neighbours, case ignored), if it is at most 2 edits away and closer than a third of its length.
public enum NameSuggestion {
    /// The nearest of `names` to `typed`, or nil when none is near enough (or `typed` is one).
    public static func nearest(to typed: String, among names: some Sequence<String>) -> String? {
        let word = Array(typed.lowercased())
        var best: (name: String, distance: Int)?
        for name in names {
            let candidate = Array(name.lowercased())
            let distance = editDistance(word, candidate)
            guard distance > 0, distance <= min(2, max(1, candidate.count / 3)) else { continue }
            if best.map({ distance < $0.distance }) ?? true { best = (name, distance) }
        }
        return best?.name
    }

    /// ` (did you mean `NAME`?)` for a near name, else "".
    public static func hint(for typed: String, among names: some Sequence<String>) -> String {
        hint(nearest(to: typed, among: names))
    }

    /// ` (did you mean `NAME`?)`, or "" for nil.
    public static func hint(_ suggestion: String?) -> String {
        suggestion.map { " (did you mean `\($0)`?)" } ?? ""
    }

    /// Optimal string alignment distance.
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }
}
