package tui

// Inline Markdown: the text of one paragraph, heading, list item or quote
// into styled spans, after CommonMark's inline rules where a model's text
// meets them — backslash escapes of every ASCII punctuation character,
// entity references, code spans (their content literal), emphasis by
// delimiter runs (an underscore inside a word is a letter: ANTHROPIC_API_KEY
// and snake_case_names keep theirs), links, images and autolinks. Raw HTML
// stays text. Every text node goes through the reveal rule.

import (
	"html"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"charm.land/lipgloss/v2"

	"github.com/warden-dev/warden/backend/reveal"
)

// inode is one inline node. Emphasis nodes hold children; a delimiter run
// not (yet) matched is a node of its own whose text is what is left of it.
type inode struct {
	kind     inodeKind
	text     string // text, code, delim (the characters left), link/image URL in url
	url      string
	children []*inode
	// delim: the run's character, its original length and what the
	// flanking rules allow.
	delim             byte
	orig              int
	canOpen, canClose bool
}

type inodeKind int

const (
	nText inodeKind = iota
	nCode
	nDelim
	nEm
	nStrong
	nLink
	nImage
)

// maxDelims bounds the delimiter runs of one paragraph that take part in
// emphasis (the matching is quadratic in them); later runs are text.
const maxDelims = 2000

// asciiPunct are the characters a backslash escapes.
const asciiPunct = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"

var entityRe = regexp.MustCompile(`^&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});`)

// autolinkRe is <scheme:…> or <user@host> (CommonMark's autolinks).
var autolinkRe = regexp.MustCompile(`^<([A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*|[A-Za-z0-9.!#$%&'*+/=?^_` + "`" + `{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*)>`)

// inline parses one block's text into styled spans (base is the block's
// style).
func inline(s string, th theme, base lipgloss.Style) []span {
	nodes := parseInline(s, 0)
	var out []span
	emitNodes(nodes, th, base, &out)
	return out
}

// parseInline reads s into nodes and matches its emphasis. depth bounds
// the nesting of link labels.
func parseInline(s string, depth int) []*inode {
	var nodes []*inode
	var text strings.Builder
	flush := func() {
		if text.Len() > 0 {
			nodes = append(nodes, &inode{kind: nText, text: text.String()})
			text.Reset()
		}
	}
	delims := 0
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && strings.IndexByte(asciiPunct, s[i+1]) >= 0:
			text.WriteByte(s[i+1])
			i += 2
			continue
		case c == '&':
			if m := entityRe.FindString(s[i:]); m != "" {
				// Only a whole entity: HTML also reads "&not" in "&notit;".
				if u := html.UnescapeString(m); u != m && (!strings.HasSuffix(u, ";") || m == "&semi;") {
					text.WriteString(u)
					i += len(m)
					continue
				}
			}
		case c == '`':
			n := runLen(s, i, '`')
			if end := closingTicks(s, i+n, n); end >= 0 {
				flush()
				nodes = append(nodes, &inode{kind: nCode, text: codeSpanText(s[i+n : end])})
				i = end + n
				continue
			}
			// No closing run of the same length: the whole run is text.
			text.WriteString(s[i : i+n])
			i += n
			continue
		case c == '*' || c == '_':
			n := runLen(s, i, c)
			if delims < maxDelims {
				delims++
				flush()
				open, close := flanking(s, i, n, c)
				nodes = append(nodes, &inode{kind: nDelim, text: s[i : i+n], delim: c, orig: n, canOpen: open, canClose: close})
			} else {
				text.WriteString(s[i : i+n])
			}
			i += n
			continue
		case c == '!' && i+1 < len(s) && s[i+1] == '[' && depth < 4:
			if label, url, n, ok := linkAt(s[i+1:]); ok {
				flush()
				nodes = append(nodes, &inode{kind: nImage, children: parseInline(label, depth+1), url: url})
				i += 1 + n
				continue
			}
		case c == '[' && depth < 4:
			if label, url, n, ok := linkAt(s[i:]); ok {
				flush()
				nodes = append(nodes, &inode{kind: nLink, children: parseInline(label, depth+1), url: url})
				i += n
				continue
			}
		case c == '<':
			if m := autolinkRe.FindStringSubmatch(s[i:]); m != nil {
				flush()
				nodes = append(nodes, &inode{kind: nLink, children: []*inode{{kind: nText, text: m[1]}}, url: m[1]})
				i += len(m[0])
				continue
			}
		}
		text.WriteByte(c)
		i++
	}
	flush()
	return mergeText(matchEmphasis(nodes))
}

// mergeText joins neighbouring text (and what is left of unmatched
// delimiter runs) into one node, so a word reads as one span.
func mergeText(nodes []*inode) []*inode {
	var out []*inode
	for _, n := range nodes {
		if n.kind == nDelim {
			n = &inode{kind: nText, text: n.text}
		}
		if n.kind == nEm || n.kind == nStrong {
			n.children = mergeText(n.children)
		}
		if k := len(out) - 1; k >= 0 && n.kind == nText && out[k].kind == nText {
			out[k] = &inode{kind: nText, text: out[k].text + n.text}
			continue
		}
		if n.kind == nText && n.text == "" {
			continue
		}
		out = append(out, n)
	}
	return out
}

func runLen(s string, i int, c byte) int {
	n := 0
	for i+n < len(s) && s[i+n] == c {
		n++
	}
	return n
}

// closingTicks is where a run of exactly n backticks starts in s at or
// after from, or -1.
func closingTicks(s string, from, n int) int {
	for i := from; i < len(s); {
		if s[i] != '`' {
			i++
			continue
		}
		m := runLen(s, i, '`')
		if m == n {
			return i
		}
		i += m
	}
	return -1
}

// codeSpanText is a code span's content as CommonMark reads it: line ends
// are spaces, and one space on each side is stripped when both are there
// (so a span of two backticks around " `x` " shows x between backticks)
// unless the content is only spaces.
func codeSpanText(c string) string {
	c = strings.ReplaceAll(c, "\n", " ")
	if len(c) >= 2 && c[0] == ' ' && c[len(c)-1] == ' ' && strings.Trim(c, " ") != "" {
		c = c[1 : len(c)-1]
	}
	return c
}

// flanking applies CommonMark's rules to the delimiter run s[i:i+n] of c:
// whether it can open and close emphasis. The start and end of the text
// count as white space; an underscore run inside a word does neither.
func flanking(s string, i, n int, c byte) (canOpen, canClose bool) {
	before, after := ' ', ' '
	if i > 0 {
		before, _ = utf8.DecodeLastRuneInString(s[:i])
	}
	if i+n < len(s) {
		after, _ = utf8.DecodeRuneInString(s[i+n:])
	}
	left := !unicode.IsSpace(after) && (!isPunct(after) || unicode.IsSpace(before) || isPunct(before))
	right := !unicode.IsSpace(before) && (!isPunct(before) || unicode.IsSpace(after) || isPunct(after))
	if c == '*' {
		return left, right
	}
	return left && (!right || isPunct(before)), right && (!left || isPunct(after))
}

func isPunct(r rune) bool {
	if r < utf8.RuneSelf {
		return strings.IndexByte(asciiPunct, byte(r)) >= 0
	}
	return unicode.IsPunct(r) || unicode.IsSymbol(r)
}

// matchEmphasis pairs delimiter runs into emphasis (CommonMark's "process
// emphasis": each closer, left to right, takes the nearest opener of its
// character; two characters make strong emphasis when both runs have
// them). What is left of a run is text.
func matchEmphasis(nodes []*inode) []*inode {
	for ci := 0; ci < len(nodes); ci++ {
		closer := nodes[ci]
		if closer.kind != nDelim || !closer.canClose {
			continue
		}
		oi := -1
		for j := ci - 1; j >= 0; j-- {
			o := nodes[j]
			if o.kind != nDelim || o.delim != closer.delim || !o.canOpen || len(o.text) == 0 {
				continue
			}
			// The rule of three: a run that can both open and close does not
			// pair with one whose lengths sum to a multiple of 3, unless both are.
			if (o.canClose || closer.canOpen) && (o.orig+closer.orig)%3 == 0 && (o.orig%3 != 0 || closer.orig%3 != 0) {
				continue
			}
			oi = j
			break
		}
		if oi < 0 {
			continue
		}
		opener := nodes[oi]
		use := 1
		if len(opener.text) >= 2 && len(closer.text) >= 2 {
			use = 2
		}
		kind := nEm
		if use == 2 {
			kind = nStrong
		}
		inner := append([]*inode(nil), nodes[oi+1:ci]...)
		for _, n := range inner {
			if n.kind == nDelim { // unmatched runs inside are text now
				n.canOpen, n.canClose = false, false
			}
		}
		em := &inode{kind: kind, children: inner}
		opener.text = opener.text[:len(opener.text)-use]
		closer.text = closer.text[:len(closer.text)-use]
		rest := append([]*inode{em}, nodes[ci:]...)
		nodes = append(nodes[:oi+1], rest...)
		ci = oi + 2 // the closer, now right after the new node
		if len(closer.text) > 0 {
			ci-- // the same closer may close again (***a** b*)
		}
	}
	return nodes
}

// emitNodes turns nodes into spans, emphasis adding to the style around.
func emitNodes(nodes []*inode, th theme, st lipgloss.Style, out *[]span) {
	add := func(t string, s lipgloss.Style) {
		if t != "" {
			*out = append(*out, span{text: reveal.RevealText(t), style: s})
		}
	}
	for _, n := range nodes {
		switch n.kind {
		case nText:
			add(n.text, st)
		case nCode:
			add(n.text, th.code)
		case nEm:
			emitNodes(n.children, th, st.Italic(true), out)
		case nStrong:
			emitNodes(n.children, th, st.Bold(true), out)
		case nLink:
			var label []span
			emitNodes(n.children, th, th.link, &label)
			*out = append(*out, label...)
			if plain := plainText(n.children); plain != n.url {
				add(" ("+n.url+")", th.dim)
			}
		case nImage:
			add("[image: "+orDefault(plainText(n.children), "no description")+"]", th.dim)
		}
	}
}

// plainText is what nodes say without their markup.
func plainText(nodes []*inode) string {
	var b strings.Builder
	for _, n := range nodes {
		switch n.kind {
		case nText, nCode:
			b.WriteString(n.text)
		default:
			b.WriteString(plainText(n.children))
		}
	}
	return b.String()
}

// linkAt parses "[label](destination)" or "[label](destination "title")"
// at the start of s: the label may hold brackets in balanced pairs or
// escaped; the destination may be in <…>; backslash escapes in it are
// resolved. The title is dropped.
func linkAt(s string) (label, url string, n int, ok bool) {
	depth := 0
	end := -1
	for i := 1; i < len(s) && end < 0; i++ {
		switch s[i] {
		case '\\':
			i++
		case '`':
			// A code span in the label hides its brackets.
			if k := closingTicks(s, i+runLen(s, i, '`'), runLen(s, i, '`')); k >= 0 {
				i = k + runLen(s, k, '`') - 1
			}
		case '[':
			depth++
		case ']':
			if depth == 0 {
				end = i
			}
			depth--
		}
	}
	if end < 0 || end+1 >= len(s) || s[end+1] != '(' {
		return "", "", 0, false
	}
	rest := s[end+2:]
	i := 0
	for i < len(rest) && (rest[i] == ' ' || rest[i] == '\t') {
		i++
	}
	var dest strings.Builder
	if i < len(rest) && rest[i] == '<' {
		j := i + 1
		for ; j < len(rest) && rest[j] != '>' && rest[j] != '\n' && rest[j] != '<'; j++ {
			if rest[j] == '\\' && j+1 < len(rest) && strings.IndexByte(asciiPunct, rest[j+1]) >= 0 {
				j++
			}
			dest.WriteByte(rest[j])
		}
		if j >= len(rest) || rest[j] != '>' {
			return "", "", 0, false
		}
		i = j + 1
	} else {
		parens := 0
		for ; i < len(rest); i++ {
			c := rest[i]
			if c == '\\' && i+1 < len(rest) && strings.IndexByte(asciiPunct, rest[i+1]) >= 0 {
				i++
				dest.WriteByte(rest[i])
				continue
			}
			if c == ' ' || c == '\t' || c == '\n' || c < 0x20 {
				break
			}
			if c == '(' {
				parens++
			}
			if c == ')' {
				if parens == 0 {
					break
				}
				parens--
			}
			dest.WriteByte(c)
		}
	}
	for i < len(rest) && (rest[i] == ' ' || rest[i] == '\t') {
		i++
	}
	// An optional title in "…", '…' or (…).
	if i < len(rest) && (rest[i] == '"' || rest[i] == '\'' || rest[i] == '(') {
		closeCh := rest[i]
		if closeCh == '(' {
			closeCh = ')'
		}
		j := i + 1
		for ; j < len(rest) && rest[j] != closeCh; j++ {
			if rest[j] == '\\' {
				j++
			}
		}
		if j >= len(rest) {
			return "", "", 0, false
		}
		i = j + 1
		for i < len(rest) && (rest[i] == ' ' || rest[i] == '\t') {
			i++
		}
	}
	if i >= len(rest) || rest[i] != ')' {
		return "", "", 0, false
	}
	return s[1:end], html.UnescapeString(dest.String()), end + 2 + i + 1, true
}
