import { App, applyDocumentTheme, applyHostStyleVariables, type McpUiHostContext } from '@modelcontextprotocol/ext-apps';

// The view runs in a sandboxed frame of the host, and talks to it over postMessage: the host
// sends it the counter tool's result, and forwards its calls to the add tool to the server.
const countEl = document.getElementById('count')!;
const button = document.getElementById('add') as HTMLButtonElement;
const status = document.getElementById('status')!;

/** A tool result as the view gets it: the server sends { count } as structuredContent. */
interface Result {
  structuredContent?: unknown;
  isError?: boolean;
}

function show(result: Result): void {
  const count = (result.structuredContent as { count?: unknown } | undefined)?.count;
  if (result.isError || typeof count !== 'number') {
    status.textContent = 'The server answered with an error.';
    return;
  }
  countEl.textContent = String(count);
  status.textContent = '';
}

function applyHostContext(context: McpUiHostContext | undefined): void {
  if (context?.theme) applyDocumentTheme(context.theme);
  if (context?.styles?.variables) applyHostStyleVariables(context.styles.variables);
}

const app = new App({ name: '{{name}} counter', version: '0.1.0' }, {});

// Register handlers before connecting, so that nothing the host sends first is missed.
app.addEventListener('toolresult', show);
app.addEventListener('hostcontextchanged', applyHostContext);

button.addEventListener('click', () => {
  button.disabled = true;
  app
    .callServerTool({ name: 'add', arguments: { by: 1 } })
    .then(show, (err: Error) => (status.textContent = `Cannot reach the server: ${err.message}`))
    .finally(() => (button.disabled = false));
});

app.connect().then(
  () => {
    applyHostContext(app.getHostContext());
    button.disabled = false;
    status.textContent = '';
  },
  (err: Error) => (status.textContent = `Cannot connect to the host: ${err.message}`),
);
