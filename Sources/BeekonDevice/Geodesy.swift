import Foundation

/// Distances on the WGS-84 sphere the way the SDK measures them.
public enum Geodesy {
    /// The Earth radius the SDK's gate uses, in metres.
    public static let earthRadiusMeters = 6_371_000.0

    /// Great-circle distance in metres between two points (haversine).
    public static func distanceMeters(
        fromLatitude latitude1: Double, longitude longitude1: Double,
        toLatitude latitude2: Double, longitude longitude2: Double
    ) -> Double {
        let phi1 = latitude1 * .pi / 180
        let phi2 = latitude2 * .pi / 180
        let deltaPhi = (latitude2 - latitude1) * .pi / 180
        let deltaLambda = (longitude2 - longitude1) * .pi / 180
        let sinHalfPhi = sin(deltaPhi / 2)
        let sinHalfLambda = sin(deltaLambda / 2)
        let a = sinHalfPhi * sinHalfPhi + cos(phi1) * cos(phi2) * sinHalfLambda * sinHalfLambda
        return 2 * earthRadiusMeters * asin(min(1, a.squareRoot()))
    }

    /// Great-circle distance in metres between two fixes.
    public static func distanceMeters(_ from: Location, _ to: Location) -> Double {
        distanceMeters(
            fromLatitude: from.latitude, longitude: from.longitude, toLatitude: to.latitude,
            longitude: to.longitude)
    }
}
