/// One CSV field and where it starts.
struct RouteCSVCell {
    package var text: String
    package var position: RouteSourcePosition
}
