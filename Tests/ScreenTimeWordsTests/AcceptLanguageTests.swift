import Foundation
import ScreenTimeWords
import Testing

/// The browser's Accept-Language (RFC 9110 §12.5.4), as the parents' page reads it to choose its
/// language when the parent chose none.
@Suite("A browser's languages")
struct AcceptLanguageTests {
    @Test("best first by q, equal ones in the header's order; q=0, the wildcard and malformed entries left out")
    func ranked() {
        #expect(AcceptLanguage.languages("de-AT, de;q=0.9, en;q=0.5") == ["de-AT", "de", "en"])
        #expect(AcceptLanguage.languages("en;q=0.5, fr;q=0.8, es") == ["es", "fr", "en"])
        #expect(AcceptLanguage.languages("fr;q=0.8, es;q=0.8, de;q=0.800") == ["fr", "es", "de"])
        // q=0: not wanted at all.
        #expect(AcceptLanguage.languages("de;q=0, es;q=0.000, fr") == ["fr"])
        // The wildcard names no language.
        #expect(AcceptLanguage.languages("*, de;q=0.1") == ["de"])
        // Malformed: a q that is no number, above 1, with four decimals; a tag with other signs.
        #expect(AcceptLanguage.languages("de;q=high, es;q=1.5, fr;q=0.1234, it;q=, <script>, en-;q=1, pt") == ["pt"])
        #expect(AcceptLanguage.languages(";;;,,, =, q=1") == [])
        #expect(AcceptLanguage.languages("") == [])
        #expect(AcceptLanguage.languages(nil) == [])
        // Spaces and capitals as browsers may send them.
        #expect(AcceptLanguage.languages("  ES-mx ;  Q=0.7 ,DE") == ["DE", "ES-mx"])
        // A header of a megabyte is read no further than its start.
        #expect(AcceptLanguage.languages(String(repeating: "de;q=0.5,", count: 100_000)).count == 64)
    }

    @Test("the language answered in: the first with a catalog, by its whole tag then by its language; English when English comes first, or none has one")
    func chosen() {
        let here: Set<String> = ["de", "es", "fr"]
        #expect(AcceptLanguage.choose("de", available: here) == "de")
        #expect(AcceptLanguage.choose("de-AT,de;q=0.9", available: here) == "de")
        #expect(AcceptLanguage.choose("es-MX", available: here) == "es")
        #expect(AcceptLanguage.choose("es-MX", available: here.union(["es_MX"])) == "es_MX")
        #expect(AcceptLanguage.choose("it, fr;q=0.5", available: here) == "fr")
        #expect(AcceptLanguage.choose("en-US,en;q=0.9,de;q=0.8", available: here) == nil)
        #expect(AcceptLanguage.choose("de;q=0, en", available: here) == nil)
        #expect(AcceptLanguage.choose("*", available: here) == nil)
        #expect(AcceptLanguage.choose("it, pt", available: here) == nil)
        #expect(AcceptLanguage.choose("garbage;q=x", available: here) == nil)
        #expect(AcceptLanguage.choose(nil, available: here) == nil)
        #expect(AcceptLanguage.choose("de", available: []) == nil)
    }
}
