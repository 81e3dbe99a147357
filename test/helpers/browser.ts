/**
 * A browser as the connect flow sees one: cookies kept per origin, redirects followed by hand, the
 * oidc-provider development login and consent forms filled in for `account`.
 */
export class TestBrowser {
  private readonly jars = new Map<string, Map<string, string>>();

  /** Opens `url` (with `headers`, such as the app's token) and follows everything to the last page. */
  async open(
    url: string,
    account: string,
    headers: Record<string, string> = {},
  ): Promise<{ url: string; status: number; html: string; headers: Headers }> {
    let current = url;
    let init: RequestInit = { headers };
    for (let step = 0; step < 25; step++) {
      const res = await this.fetch(current, init);
      init = {};
      const location = res.headers.get('location');
      if (location) {
        current = new URL(location, current).href;
        continue;
      }
      const html = await res.text();
      const form = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
      // The provider's login and consent pages; anything else is where the flow ends.
      if (!form || !/login|consent|interaction/i.test(new URL(form, current).pathname)) {
        return { url: current, status: res.status, html, headers: res.headers };
      }
      const fields = new URLSearchParams();
      for (const [tag] of html.matchAll(/<input[^>]*>/g)) {
        const name = /name="([^"]+)"/.exec(tag)?.[1];
        if (name) fields.set(name, /value="([^"]*)"/.exec(tag)?.[1] ?? '');
      }
      if (fields.has('login')) fields.set('login', account);
      if (fields.has('password')) fields.set('password', 'any-password');
      current = new URL(form, current).href;
      init = {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: fields.toString(),
      };
    }
    throw new Error('too many steps');
  }

  /** Posts a page's form as the user's click would. */
  async submit(
    pageUrl: string,
    html: string,
  ): Promise<{ status: number; html: string; location: string | null }> {
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    if (!action) throw new Error('no form on the page');
    const fields = new URLSearchParams();
    for (const [tag] of html.matchAll(/<input[^>]*>/g)) {
      const name = /name="([^"]+)"/.exec(tag)?.[1];
      if (name) fields.set(name, (/value="([^"]*)"/.exec(tag)?.[1] ?? '').replaceAll('&amp;', '&'));
    }
    const res = await this.fetch(new URL(action, pageUrl).href, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: fields.toString(),
    });
    return { status: res.status, html: await res.text(), location: res.headers.get('location') };
  }

  private async fetch(url: string, init: RequestInit): Promise<Response> {
    const origin = new URL(url).origin;
    const jar = this.jars.get(origin) ?? new Map<string, string>();
    this.jars.set(origin, jar);
    const res = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: {
        ...(init.headers as Record<string, string>),
        cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '),
      },
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      const value = pair!.slice(at + 1);
      if (value === '' || /max-age=0|expires=thu, 01 jan 1970/i.test(line)) jar.delete(pair!.slice(0, at));
      else jar.set(pair!.slice(0, at), value);
    }
    return res;
  }
}
