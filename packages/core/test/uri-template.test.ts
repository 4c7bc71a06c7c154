import { UriTemplate, UriTemplateError, UriTemplateVariables } from '../src/uri-template';

// Variables from RFC 6570 section 3.2 (associative arrays are not supported).
const RFC_VARS: UriTemplateVariables = {
  count: ['one', 'two', 'three'],
  dom: ['example', 'com'],
  dub: 'me/too',
  hello: 'Hello World!',
  half: '50%',
  var: 'value',
  who: 'fred',
  base: 'http://example.com/home/',
  path: '/foo/bar',
  list: ['red', 'green', 'blue'],
  v: '6',
  x: '1024',
  y: '768',
  empty: '',
  undef: undefined,
};

const expand = (template: string, vars: UriTemplateVariables = RFC_VARS): string => UriTemplate.parse(template).expand(vars);
const match = (template: string, uri: string) => UriTemplate.parse(template).match(uri);

describe('UriTemplate.expand: RFC 6570 section 3.2 examples', () => {
  test.each([
    // 3.2.1 variable expansion
    ['{count}', 'one,two,three'],
    ['{count*}', 'one,two,three'],
    ['{/count}', '/one,two,three'],
    ['{/count*}', '/one/two/three'],
    ['{;count}', ';count=one,two,three'],
    ['{;count*}', ';count=one;count=two;count=three'],
    ['{?count}', '?count=one,two,three'],
    ['{?count*}', '?count=one&count=two&count=three'],
    ['{&count*}', '&count=one&count=two&count=three'],
    // 3.2.2 simple string expansion
    ['{var}', 'value'],
    ['{hello}', 'Hello%20World%21'],
    ['{half}', '50%25'],
    ['O{empty}X', 'OX'],
    ['O{undef}X', 'OX'],
    ['{x,y}', '1024,768'],
    ['{x,hello,y}', '1024,Hello%20World%21,768'],
    ['?{x,empty}', '?1024,'],
    ['?{x,undef}', '?1024'],
    ['?{undef,y}', '?768'],
    ['{var:3}', 'val'],
    ['{var:30}', 'value'],
    ['{list}', 'red,green,blue'],
    ['{list*}', 'red,green,blue'],
    // 3.2.3 reserved expansion
    ['{+var}', 'value'],
    ['{+hello}', 'Hello%20World!'],
    ['{+half}', '50%25'],
    ['{base}index', 'http%3A%2F%2Fexample.com%2Fhome%2Findex'],
    ['{+base}index', 'http://example.com/home/index'],
    ['O{+empty}X', 'OX'],
    ['O{+undef}X', 'OX'],
    ['{+path}/here', '/foo/bar/here'],
    ['here?ref={+path}', 'here?ref=/foo/bar'],
    ['up{+path}{var}/here', 'up/foo/barvalue/here'],
    ['{+x,hello,y}', '1024,Hello%20World!,768'],
    ['{+path,x}/here', '/foo/bar,1024/here'],
    ['{+path:6}/here', '/foo/b/here'],
    ['{+list}', 'red,green,blue'],
    ['{+list*}', 'red,green,blue'],
    // 3.2.4 fragment expansion
    ['{#var}', '#value'],
    ['{#hello}', '#Hello%20World!'],
    ['{#half}', '#50%25'],
    ['foo{#empty}', 'foo#'],
    ['foo{#undef}', 'foo'],
    ['{#x,hello,y}', '#1024,Hello%20World!,768'],
    ['{#path,x}/here', '#/foo/bar,1024/here'],
    ['{#path:6}/here', '#/foo/b/here'],
    ['{#list}', '#red,green,blue'],
    ['{#list*}', '#red,green,blue'],
    // 3.2.5 label expansion with dot-prefix
    ['{.who}', '.fred'],
    ['{.who,who}', '.fred.fred'],
    ['{.half,who}', '.50%25.fred'],
    ['www{.dom*}', 'www.example.com'],
    ['X{.var}', 'X.value'],
    ['X{.empty}', 'X.'],
    ['X{.undef}', 'X'],
    ['X{.var:3}', 'X.val'],
    ['X{.list}', 'X.red,green,blue'],
    ['X{.list*}', 'X.red.green.blue'],
    // 3.2.6 path segment expansion
    ['{/who}', '/fred'],
    ['{/who,who}', '/fred/fred'],
    ['{/half,who}', '/50%25/fred'],
    ['{/who,dub}', '/fred/me%2Ftoo'],
    ['{/var}', '/value'],
    ['{/var,empty}', '/value/'],
    ['{/var,undef}', '/value'],
    ['{/var,x}/here', '/value/1024/here'],
    ['{/var:1,var}', '/v/value'],
    ['{/list}', '/red,green,blue'],
    ['{/list*}', '/red/green/blue'],
    ['{/list*,path:4}', '/red/green/blue/%2Ffoo'],
    // 3.2.7 path-style parameter expansion
    ['{;who}', ';who=fred'],
    ['{;half}', ';half=50%25'],
    ['{;empty}', ';empty'],
    ['{;v,empty,who}', ';v=6;empty;who=fred'],
    ['{;v,bar,who}', ';v=6;who=fred'],
    ['{;x,y}', ';x=1024;y=768'],
    ['{;x,y,empty}', ';x=1024;y=768;empty'],
    ['{;x,y,undef}', ';x=1024;y=768'],
    ['{;hello:5}', ';hello=Hello'],
    ['{;list}', ';list=red,green,blue'],
    ['{;list*}', ';list=red;list=green;list=blue'],
    // 3.2.8 form-style query expansion
    ['{?who}', '?who=fred'],
    ['{?half}', '?half=50%25'],
    ['{?x,y}', '?x=1024&y=768'],
    ['{?x,y,empty}', '?x=1024&y=768&empty='],
    ['{?x,y,undef}', '?x=1024&y=768'],
    ['{?var:3}', '?var=val'],
    ['{?list}', '?list=red,green,blue'],
    ['{?list*}', '?list=red&list=green&list=blue'],
    // 3.2.9 form-style query continuation
    ['{&who}', '&who=fred'],
    ['{&half}', '&half=50%25'],
    ['?fixed=yes{&x}', '?fixed=yes&x=1024'],
    ['{&x,y,empty}', '&x=1024&y=768&empty='],
    ['{&var:3}', '&var=val'],
    ['{&list}', '&list=red,green,blue'],
    ['{&list*}', '&list=red&list=green&list=blue'],
  ])('%s -> %s', (template, expected) => {
    expect(expand(template)).toBe(expected);
  });
});

describe('UriTemplate.expand: other behaviour', () => {
  test('numbers and booleans are stringified', () => {
    expect(expand('/p/{n}{?flag}', { n: 42, flag: true })).toBe('/p/42?flag=true');
  });

  test('empty lists and absent, undefined or inherited keys are skipped', () => {
    expect(expand('/a{/list*}{?q,constructor}', { list: [], q: undefined })).toBe('/a');
    expect(expand('{toString}', {})).toBe('');
  });

  test('UTF-8 percent-encoding; prefix counts code points', () => {
    expect(expand('{v}', { v: 'café 😀' })).toBe('caf%C3%A9%20%F0%9F%98%80');
    expect(expand('{v:2}', { v: '😀😁😂' })).toBe('%F0%9F%98%80%F0%9F%98%81');
  });

  test("unreserved-only operators encode !*'() and reserved chars; + and # keep existing %XX", () => {
    expect(expand('{v}', { v: "!*'()[]" })).toBe('%21%2A%27%28%29%5B%5D');
    expect(expand('{+v}', { v: "!*'()[]%2F%zz" })).toBe("!*'()[]%2F%25zz");
  });

  test('literals are copied as-is', () => {
    expect(expand('test://template/{id}/data', { id: 'a b' })).toBe('test://template/a%20b/data');
  });
});

describe('UriTemplate.match: round trips', () => {
  test.each<[string, UriTemplateVariables]>([
    ['/a/{x}/b', { x: 'hello world/?#&,' }],
    ['/a/{x,y}', { x: 'one, two', y: '3' }],
    ['file:///{+path}', { path: 'dir/sub dir/file.txt' }],
    ['{+base}index', { base: 'http://example.com/home/' }],
    ['/doc{#section}', { section: 'intro/part 1' }],
    ['/doc{#a,b}', { a: 'x', b: 'y' }],
    ['file{.ext}', { ext: 'txt' }],
    ['www{.dom*}', { dom: ['example', 'com'] }],
    ['/base{/seg}', { seg: 'a/b' }],
    ['/base{/seg*}', { seg: ['a', 'b c', 'd/e'] }],
    ['/base{/a,b}/end', { a: '1', b: '2' }],
    ['/m{;x,y}', { x: '1024', y: 'a;b=c' }],
    ['/m{;x,empty}', { x: '1', empty: '' }],
    ['/m{;list*}', { list: ['red', '', 'blue'] }],
    ['/s{?q,page}', { q: 'a&b=c d', page: '2' }],
    ['/s{?q,empty}', { q: 'x', empty: '' }],
    ['/s{?tag*}', { tag: ['a', 'b&c'] }],
    ['/s?fixed=1{&q}', { q: 'z' }],
    ['/s{?a}{&b,c}', { a: '1', b: '2', c: '3' }],
    ['{list*}', { list: ['red', 'green', 'blue'] }],
    ['{+list*}', { list: ['a/b', 'c'] }],
    ['{#list*}', { list: ['a', 'b'] }],
    ['/u/{id}{/rest*}{?format}{#frag}', { id: 'é', rest: ['x', 'y'], format: 'json', frag: 'top' }],
  ])('%s', (template, vars) => {
    const t = UriTemplate.parse(template);
    expect(t.match(t.expand(vars))).toEqual(vars);
  });
});

describe('UriTemplate.match: MCP-style templates', () => {
  test('test://template/{id}/data', () => {
    const t = UriTemplate.parse('test://template/{id}/data');
    expect(t.match('test://template/123/data')).toEqual({ id: '123' });
    expect(t.match('test://template/123/data/extra')).toBeNull();
    expect(t.match('test://template/1/2/data')).toBeNull();
    expect(t.match('test://template//data')).toBeNull();
    expect(t.match('test://other/123/data')).toBeNull();
    expect(t.match('TEST://template/123/data')).toBeNull();
    expect(t.match('test://template/123/data?x=1')).toBeNull();
    expect(t.match('prefix-test://template/123/data')).toBeNull();
  });

  test('simple variables stop at / ? # &', () => {
    const t = UriTemplate.parse('x://{id}');
    for (const uri of ['x://a/b', 'x://a?b', 'x://a#b', 'x://a&b', 'x://']) expect(t.match(uri)).toBeNull();
    expect(t.match('x://a:b@c,d')).toEqual({ id: 'a:b@c,d' });
  });

  test('file:///{+path}', () => {
    const t = UriTemplate.parse('file:///{+path}');
    expect(t.match('file:///home/user/notes.md')).toEqual({ path: 'home/user/notes.md' });
    expect(t.match('file:///C:/My%20Docs/a.txt')).toEqual({ path: 'C:/My Docs/a.txt' });
    expect(t.match('file:///a?b#c')).toEqual({ path: 'a?b#c' });
    expect(t.match('file:///')).toBeNull();
    expect(t.match('file://host/x')).toBeNull();
  });

  test('notes://{folder}/{id}{?format,lang}', () => {
    const t = UriTemplate.parse('notes://{folder}/{id}{?format,lang}');
    expect(t.variableNames).toEqual(['folder', 'id', 'format', 'lang']);
    expect(t.match('notes://work/42')).toEqual({ folder: 'work', id: '42' });
    expect(t.match('notes://work/42?')).toEqual({ folder: 'work', id: '42' });
    expect(t.match('notes://work/42?format=md')).toEqual({ folder: 'work', id: '42', format: 'md' });
    expect(t.match('notes://work/42?lang=en&format=md')).toEqual({ folder: 'work', id: '42', format: 'md', lang: 'en' });
    expect(t.match('notes://work/42?lang=pt%2DBR&other=1&format=')).toEqual({
      folder: 'work',
      id: '42',
      format: '',
      lang: 'pt-BR',
    });
    const partial = t.match('notes://work/42?lang=en')!;
    expect(Object.keys(partial)).toEqual(['folder', 'id', 'lang']);
    expect(t.match('notes://work/42/extra?format=md')).toBeNull();
    expect(t.match('notes://work/42?format=%ZZ')).toBeNull();
  });

  test('users{/id*}', () => {
    const t = UriTemplate.parse('users{/id*}');
    expect(t.match('users/1/2/3')).toEqual({ id: ['1', '2', '3'] });
    expect(t.match('users/1')).toEqual({ id: ['1'] });
    expect(t.match('users/a%2Fb/c')).toEqual({ id: ['a/b', 'c'] });
    expect(t.match('users')).toBeNull();
    expect(t.match('users/1//2')).toBeNull();
    expect(t.match('users/1/')).toBeNull();
  });

  test('exploded ; and ? values are arrays; plain lists stay strings', () => {
    expect(match('/m{;list*}', '/m;list=a;list=b')).toEqual({ list: ['a', 'b'] });
    expect(match('/s{?tag*}', '/s?tag=x')).toEqual({ tag: ['x'] });
    expect(match('/s{?list}', '/s?list=red,green')).toEqual({ list: 'red,green' });
    expect(match('/s{?q}', '/s?q=1&q=2')).toEqual({ q: '1' });
  });

  test('; parameters must use the right names', () => {
    expect(match('/m{;x,y}', '/m;x=1;y=2')).toEqual({ x: '1', y: '2' });
    expect(match('/m{;x,y}', '/m;y=1;x=2')).toBeNull();
    expect(match('/m{;x}', '/m;x')).toEqual({ x: '' });
  });
});

describe('UriTemplate.match: decoding, literals and edge cases', () => {
  test('values are percent-decoded (UTF-8)', () => {
    expect(match('/p/{id}', '/p/caf%C3%A9%20%F0%9F%98%80')).toEqual({ id: 'café 😀' });
    expect(match('/p/{id}', '/p/a+b')).toEqual({ id: 'a+b' });
  });

  test('malformed percent-encoding does not match (and does not throw)', () => {
    expect(match('/p/{id}', '/p/%zz')).toBeNull();
    expect(match('/p/{id}', '/p/%E0%A4%A')).toBeNull();
    expect(match('/p/{id}', '/p/%C3')).toBeNull();
    expect(match('/p{/seg*}', '/p/ok/%')).toBeNull();
  });

  test('literal regex metacharacters are matched exactly', () => {
    const t = UriTemplate.parse('a.b(c)+[d]$^|\\/{x}?');
    expect(t.match('a.b(c)+[d]$^|\\/1?')).toEqual({ x: '1' });
    expect(t.match('aXb(c)+[d]$^|\\/1?')).toBeNull();
    expect(t.match('a.b(c)[d]$^|\\/1?')).toBeNull();
  });

  test('a repeated variable must capture the same value', () => {
    const t = UriTemplate.parse('/{x}/{x}');
    expect(t.variableNames).toEqual(['x']);
    expect(t.match('/a/a')).toEqual({ x: 'a' });
    expect(t.match('/a/b')).toBeNull();
  });

  test('variable names that shadow Object.prototype are plain own properties', () => {
    const m = match('/{__proto__}/{constructor}', '/a/b')!;
    expect(Object.getPrototypeOf(m)).toBe(Object.prototype);
    expect(Object.keys(m)).toEqual(['__proto__', 'constructor']);
    expect(m['constructor']).toBe('b');
  });

  test('a template without expressions matches only itself', () => {
    const t = UriTemplate.parse('config://app');
    expect(t.variableNames).toEqual([]);
    expect(t.match('config://app')).toEqual({});
    expect(t.match('config://app/')).toBeNull();
  });

  test('template, toString and variableNames (ordered, unique)', () => {
    const t = UriTemplate.parse('{a}{?b,a}{/c*}{#d:3}');
    expect(t.template).toBe('{a}{?b,a}{/c*}{#d:3}');
    expect(String(t)).toBe('{a}{?b,a}{/c*}{#d:3}');
    expect(t.variableNames).toEqual(['a', 'b', 'c', 'd']);
    expect(Object.isFrozen(t.variableNames)).toBe(true);
  });

  test('valid variable names', () => {
    expect(UriTemplate.parse('{a.b_c1,%41x,A9*}').variableNames).toEqual(['a.b_c1', '%41x', 'A9']);
    expect(UriTemplate.parse('{v:9999}').expand({ v: 'x' })).toBe('x');
  });
});

describe('UriTemplate.parse errors', () => {
  test.each([
    ['a{b', "unclosed '{'", 1],
    ['a{b{c}', "unclosed '{'", 1],
    ['a}b', "stray '}'", 1],
    ['{a}}', "stray '}'", 3],
    ['x{}', 'empty expression', 1],
    ['{=a}', "reserved operator '='", 1],
    ['{,a}', "reserved operator ','", 1],
    ['{!a}', "reserved operator '!'", 1],
    ['x{@a}', "reserved operator '@'", 2],
    ['{|a}', "reserved operator '|'", 1],
    ['{$a}', "unknown operator '$'", 1],
    ['{+}', 'missing variable name', 2],
    ['{a-b}', "invalid character '-' in variable name", 2],
    ['{a b}', "invalid character ' ' in variable name", 2],
    ['{+a,,b}', 'missing variable name', 4],
    ['{a,}', 'missing variable name', 3],
    ['{a..b}', "invalid character '.' in variable name", 3],
    ['{a.}', "variable name cannot end with '.'", 2],
    ['{.%zz}', 'invalid percent-encoding in variable name', 2],
    ['{a*b}', "invalid character 'b' after explode modifier", 3],
    ['{var:0}', "invalid prefix length '0' (must be 1-9999)", 5],
    ['{var:10000}', "invalid prefix length '10000' (must be 1-9999)", 5],
    ['{var:05}', "invalid prefix length '05' (must be 1-9999)", 5],
    ['{var:x}', "invalid prefix length 'x' (must be 1-9999)", 5],
    ['{var:}', "invalid prefix length '' (must be 1-9999)", 5],
    ['{var:3*}', 'prefix and explode modifiers cannot be combined', 4],
    ['{var*:3}', 'prefix and explode modifiers cannot be combined', 4],
  ])('%s -> %s at offset %d', (template, reason, offset) => {
    let error: unknown;
    try {
      UriTemplate.parse(template);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UriTemplateError);
    const err = error as UriTemplateError;
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe('UriTemplateError');
    expect(err.reason).toBe(reason);
    expect(err.offset).toBe(offset);
    expect(err.template).toBe(template);
    expect(err.message).toBe(`${reason} at offset ${offset} in URI template ${JSON.stringify(template)}`);
  });
});
