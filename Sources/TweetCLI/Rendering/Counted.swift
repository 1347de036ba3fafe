/// A count with its noun, singular for one: "1 follower", "2 followers".
func counted(_ count: Int, _ singular: String, plural: String? = nil) -> String {
    "\(count) " + (count == 1 ? singular : plural ?? singular + "s")
}
