import { escapeHtml, html } from './html';

describe('html', () => {
  it('when a value holds markup, then it is escaped, attribute quotes included', () => {
    const email = `"><script>alert('x')</script>@example.com`;
    expect(html`<input value="${email}">`.text).toBe('<input value="&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;@example.com">');
  });

  it('when fragments are nested or listed, then they are kept as markup; empty values render nothing', () => {
    const items = ['a&b', 'c'].map((item) => html`<li>${item}</li>`);
    expect(html`<ul>${items}${null}${undefined}${false}</ul>`.text).toBe('<ul><li>a&amp;b</li><li>c</li></ul>');
    expect(html`${0}`.text).toBe('0');
  });

  it('when text is escaped, then & is escaped first and only once', () => {
    expect(escapeHtml('&lt;')).toBe('&amp;lt;');
  });
});
