import escapeHtml from 'escape-html';

export type CodeLanguage = 'js' | 'json' | 'sh' | 'http';

// One pass over the raw source: comments, strings, keywords, literals. Every character, matched or
// not, goes through escapeHtml, so interpolated values (the api URL, a model id) cannot open a tag.
const jsTokens =
  /(\/\/[^\n]*)|('(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"|`(?:\\.|[^`\\])*`)|\b(const|let|await|async|for|of|if|else|return|new|import|from|break|throw|try|catch|instanceof)\b|\b(true|false|null|undefined|\d+(?:\.\d+)?)\b/g;
const httpTokens = /^([A-Z]+ )|^([A-Za-z-]+:)/gm;

function highlight(code: string, language: CodeLanguage): string {
  if (language === 'sh')
    return code
      .split('\n')
      .map((line) => `<span class="t-cmd">${escapeHtml(line)}</span>`)
      .join('\n');
  const pattern = language === 'http' ? httpTokens : jsTokens;
  let html = '';
  let last = 0;
  for (const match of code.matchAll(pattern)) {
    const [text, comment, string, keyword] = match;
    const kind =
      language === 'http'
        ? comment
          ? 'k'
          : 'a'
        : comment
          ? 'c'
          : string
            ? language === 'json' && code[match.index + text.length] === ':'
              ? 'a'
              : 's'
            : keyword
              ? 'k'
              : 'n';
    html += escapeHtml(code.slice(last, match.index)) + `<span class="t-${kind}">${escapeHtml(text)}</span>`;
    last = match.index + text.length;
  }
  return html + escapeHtml(code.slice(last));
}

/** A code block with an optional caption and a copy button (shown only once the page script runs). */
export function codeBlock(code: string, language: CodeLanguage, caption?: string): string {
  const head = `<div class="code-head"><span>${escapeHtml(caption ?? { js: 'JavaScript', json: 'JSON', sh: 'Shell', http: 'HTTP' }[language])}</span><button type="button" class="copy" hidden>Copy</button></div>`;
  return `<figure class="code">${head}<pre><code>${highlight(code.trim(), language)}</code></pre></figure>`;
}
