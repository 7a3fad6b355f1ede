// Which characters a human cannot see as they are: one rule for the
// prompt's command view and the chat's Markdown.

// What a badge says about a code point, or null for an ordinary character.
export function invisibleName(cp: number): string | null {
  if (cp === 0x09) return null // a tab is shown as white space (runs are collapsed below)
  if (cp < 0x20 || cp === 0x7f) return 'control character'
  if (cp >= 0x80 && cp <= 0x9f) return 'control character'
  if (cp >= 0x202a && cp <= 0x202e) return 'bidi control (reorders the text around it)'
  if (cp >= 0x2066 && cp <= 0x2069) return 'bidi isolate (reorders the text around it)'
  if (cp === 0x200e || cp === 0x200f || cp === 0x061c) return 'direction mark'
  if (cp === 0x00a0 || cp === 0x202f || cp === 0x2007) return 'non-breaking space'
  if (cp >= 0x2000 && cp <= 0x200a) return 'unusual space'
  if (cp === 0x205f || cp === 0x3000 || cp === 0x1680) return 'unusual space'
  if (cp >= 0x200b && cp <= 0x200d) return 'zero-width character'
  if (cp === 0x2060 || cp === 0xfeff || cp === 0x180e || cp === 0x00ad || cp === 0x034f) return 'invisible character'
  if (cp >= 0x2061 && cp <= 0x2064) return 'invisible operator'
  if (cp === 0x2028 || cp === 0x2029) return 'line or paragraph separator'
  if (cp >= 0xfe00 && cp <= 0xfe0f) return 'variation selector'
  if (cp >= 0xe0000 && cp <= 0xe007f) return 'tag character (invisible)'
  if (cp >= 0xfff9 && cp <= 0xfffb) return 'interlinear annotation'
  return null
}

export function codePointLabel(cp: number): string {
  return 'U+' + cp.toString(16).toUpperCase().padStart(4, '0')
}
