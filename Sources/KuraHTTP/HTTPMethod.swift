/// An HTTP request method. Known methods are cases; anything else http-parser accepts is `.other`.
public enum HTTPMethod: Hashable, Sendable, CustomStringConvertible {
    case GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS
    case other(String)

    public init(_ name: String) {
        switch name {
        case "GET": self = .GET
        case "HEAD": self = .HEAD
        case "POST": self = .POST
        case "PUT": self = .PUT
        case "PATCH": self = .PATCH
        case "DELETE": self = .DELETE
        case "OPTIONS": self = .OPTIONS
        default: self = .other(name)
        }
    }

    public var description: String {
        switch self {
        case .GET: "GET"
        case .HEAD: "HEAD"
        case .POST: "POST"
        case .PUT: "PUT"
        case .PATCH: "PATCH"
        case .DELETE: "DELETE"
        case .OPTIONS: "OPTIONS"
        case .other(let name): name
        }
    }
}
