/// A snapshot of common public suffixes of more than one label: names under which anyone can
/// register their own site (`co.uk`, `github.io`), so that a cookie for one would go to
/// every site below it. Not the full Public Suffix List: the suffixes most downloads meet.
/// A one-label suffix (`com`, `uk`) needs no list: a `Domain` without a dot is refused.
enum PublicSuffix {
    static let snapshot: Set<String> = [
        // Countries' second levels.
        "co.uk", "org.uk", "ac.uk", "gov.uk", "me.uk", "ltd.uk", "plc.uk", "net.uk", "sch.uk", "nhs.uk",
        "com.au", "net.au", "org.au", "edu.au", "gov.au", "id.au", "asn.au",
        "co.jp", "ne.jp", "or.jp", "ac.jp", "go.jp", "ad.jp", "ed.jp", "gr.jp", "lg.jp",
        "com.br", "net.br", "org.br", "gov.br", "edu.br",
        "com.cn", "net.cn", "org.cn", "gov.cn", "edu.cn", "ac.cn",
        "co.nz", "net.nz", "org.nz", "govt.nz", "ac.nz",
        "co.in", "net.in", "org.in", "gov.in", "ac.in", "edu.in", "firm.in", "gen.in", "ind.in",
        "co.za", "org.za", "gov.za", "ac.za", "net.za",
        "co.kr", "or.kr", "ne.kr", "go.kr", "ac.kr", "re.kr",
        "com.tw", "org.tw", "net.tw", "edu.tw", "gov.tw",
        "com.hk", "org.hk", "net.hk", "edu.hk", "gov.hk",
        "com.sg", "org.sg", "net.sg", "edu.sg", "gov.sg",
        "com.mx", "org.mx", "gob.mx", "edu.mx", "net.mx",
        "com.ar", "org.ar", "net.ar", "gob.ar", "edu.ar",
        "com.tr", "org.tr", "net.tr", "gov.tr", "edu.tr",
        "co.il", "org.il", "net.il", "ac.il", "gov.il",
        "com.ru", "org.ru", "net.ru", "com.ua", "org.ua", "net.ua", "com.pl", "net.pl", "org.pl",
        "co.id", "or.id", "ac.id", "go.id", "web.id", "com.my", "org.my", "net.my", "gov.my", "edu.my",
        "com.ph", "org.ph", "net.ph", "com.vn", "net.vn", "org.vn", "co.th", "or.th", "ac.th", "go.th", "in.th",
        "com.eg", "com.sa", "com.pk", "com.ng", "co.ke", "com.co", "com.pe", "com.ve", "com.ec", "co.at", "or.at",
        "com.es", "org.es", "gob.es", "com.pt", "com.gr", "co.hu", "com.fr", "co.it", "co.no",
        // Hosting platforms where each user or project gets a subdomain.
        "github.io", "gitlab.io", "githubusercontent.com", "s3.amazonaws.com", "cloudfront.net", "elasticbeanstalk.com",
        "amplifyapp.com", "herokuapp.com", "herokussl.com", "appspot.com", "blogspot.com", "netlify.app",
        "vercel.app", "now.sh", "pages.dev", "workers.dev", "azurewebsites.net", "cloudapp.net",
        "azurestaticapps.net", "web.app", "firebaseapp.com", "fly.dev", "onrender.com", "glitch.me", "repl.co",
        "readthedocs.io", "surge.sh", "bitbucket.io", "ngrok.io", "ngrok-free.app", "trycloudflare.com",
        "translate.goog", "codeberg.page", "sourceforge.io", "neocities.org",
        "dyndns.org", "duckdns.org", "myshopify.com", "wixsite.com",
    ]

    /// Whether `domain` (canonical: lower case, no outer dots) is one of the snapshot's.
    static func contains(_ domain: String) -> Bool { snapshot.contains(domain) }
}
