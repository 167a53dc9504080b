// Writes table.json: for every pattern, new RegExp(pattern) (no flags)
// and its .test() verdict on every string, or "SyntaxError" when
// RegExp refuses the pattern. TestRegexAgreesWithNode reads the table;
// regenerate it after editing the lists:
//
//   node query/eval/testdata/regex/node.mjs > query/eval/testdata/regex/table.json
//
// Strings holding lone surrogates are written as \u escapes, which
// JSON.stringify does for every unpaired surrogate.

const patterns = [
  // plain, dot and anchors
  "a", "abc", "^a$", "^$", "^", "$", ".", "^.$", "^..$", "^.+$", "a.c",
  "a$", "^b", "\\Bb", "\\bb", "a|b", "|", "(?:)", "()", "^(?:a|ab)c$",
  // astral characters and surrogates (no u flag: UTF-16 code units)
  "😀", "^😀$", "^[😀]$", "[😀]", "^[😀]{2}$", "^\\uD83D\\uDE00$", "\\uD83D",
  "\\uDE00$", "^\\uD83D", "^.\\uDE00$", "^[^a]$", "^[^a]{2}$",
  "[\\uD800-\\uDBFF]", "[\\uDC00-\\uDFFF]$", "^\\S$", "^\\S\\S$", "\\u{1F600}",
  "^\\u{2}$", "(?<=😀)x", "^\\W+$", "\\uD83D|\\uDE00", "^(?:\\uDE00|x)",
  "[😀-😂]", "[\\uD000-\\uE000]", "^[\\uD800-\\uDFFF]+$", "^[^\\uD83D]+$",
  "(\\uD83D)\\1", "^[\\u0000-\\uFFFF]$", ".\\uDE00", "\\😀", "^[\\😀]$",
  "(?<𝒜>a)", "^(?:😀|x)+$", "😀?$", "(?<=\\uDE00)\\uD83D",
  // BMP beyond ASCII
  "é", "^é$", "^\\u00e9$", "ß", "[à-ÿ]", "日本", "^\\w+$", "\\w", "^\\W$",
  "\\bcaf", "caf\\b", "\\d", "^\\d+$", "\\s", "^\\s$", "\\S", "^[^\\s]+$",
  // no case folding without the i flag
  "k", "K", "[a-z]", "^[A-Z]+$", "σ", "Σ", "[K]",
  // classes
  "[abc]", "[^abc]", "[a-c]+", "[\\d.]", "[\\b]", "[^]", "[]", "[\\w-]",
  "[-a]", "[a-]", "\\p{L}", "^\\p{L}$", "\\P{L}", "[a-z-[aeiou]]", "[\\s\\S]",
  "[z-a]", "[\\k](?<x>a)", "[\\k]", "[\\c_]", "\\c_", "\\c*", "[\\-a]",
  "[\\d-z]", "[a-\\d]", "[\\x41-\\x43]", "[\\0-\\10]", "[\\8]", "[.]",
  // lookarounds
  "a(?=b)", "a(?!b)", "(?<=a)b", "(?<!a)b", "(?=a)*", "(?<=\\uD83D)\\uDE00",
  // backreferences and legacy octal
  "(a)\\1", "^(?:(a)|b)\\1$", "(?<x>a)\\k<x>", "\\k<x>", "\\1(a)", "\\2(a)",
  "\\8", "(a)\\8", "[\\1]", "\\0", "\\012", "\\k<x>(?<x>b)", "(?<x>a)\\k<y>",
  "(?<a>x)|(?<a>y)", "(?<a>x)(?<a>y)", "\\k", "(?<x>a)\\k",
  "^(a)?\\1$", "(a)(?:\\1)+$",
  // quantifiers
  "a{2}", "a{2,}", "a{,2}", "a{", "a{2}{3}", "a**", "+a", "*", "^(a+)+$",
  "a{3,2}", "a??", "x*?$",
  // escapes
  "\\cA", "\\c1", "[\\c1]", "\\x41", "\\x4", "\\u004", "\\A", "\\z", "\\Z",
  "\\e", "\\a", "\\/", "\\-", "\\.", "\\QaE", "\\Qa\\E", "\\R", "\\X",
  // .NET / PCRE syntax that ECMA-262 refuses
  "(?i)a", "(?i:a)", "(?-i)a", "(?>a)", "(?#c)a", "(?s).", "(?m)^a",
  "(?n)(a)", "(?x)a b", "(?'n'a)", "(?<n>a)\\k'n'", "(?(a)b|c)",
  "(?<a-b>x)", "(?P<n>a)", "a++", "a*+", "a{2}+", "(?imsx)a", "(?^)a",
  "(?|a)", "(?R)", "(?&n)(?<n>a)", "\\g<1>(a)", "(?U)a",
  // malformed
  "(", ")", "[", "a)", "\\", "a{2,1}",
];

const strings = [
  "", "a", "b", "ab", "abc", "aa", "aab", "ba", "bb", "A", "k", "K",
  "\u212A", "\u017F", "σ", "Σ", "é", "É", "e\u0301", "ß", "café", "日本語",
  "😀", "😀😀", "a😀", "😀x", "x😀", "\uD83D", "\uDE00", "\uDE00\uD83D",
  "a\uD800b", "\n", "a\n", "a\nb", "\r", "\u2028", "\u00A0", "\uFEFF",
  "\u3000", " ", "\t", "\u0663", "123", "1.5", "\b", "\u0000", "\u0001",
  "\u0002", "\u0012", "8", "k<x>", "p{L}", "uu", "a{,2}", "a{", "\\", "c",
  "x", "QaE", "\u001b", "-", "/", "ac", "abc\n", "zz", "[]", "e", "R",
  "\\c1", "\u0011", "\u0004", "u004", "g<1>a", "\uFFFD", "\uD83D\uDE01",
  "\uD83D\uDE00\uD83D", "a\u2029",
];

const rows = patterns.map((p) => {
  let re;
  try {
    re = new RegExp(p);
  } catch (e) {
    if (e instanceof SyntaxError) return "SyntaxError";
    throw e;
  }
  return strings.map((s) => (re.test(s) ? "1" : "0")).join("");
});

const out = {
  source: "node " + process.version + ", new RegExp(pattern).test(string), no flags",
  strings,
  patterns: patterns.map((p, i) => ({ pattern: p, verdicts: rows[i] })),
};
process.stdout.write(JSON.stringify(out, null, 1) + "\n");
