import 'reflect-metadata';
import { AppResource, McpServer, Server, Tool } from '@mcpx/core';
import { IsString } from 'class-validator';

export class CityInput {
  @IsString()
  city!: string;
}

const DASHBOARD = `<!doctype html>
<html><body>
  <p id="forecast">Waiting for the forecast…</p>
  <script type="module">
    // In a real view this is the official App SDK (@modelcontextprotocol/ext-apps), bundled in.
  </script>
</body></html>`;

/** A tool whose results a host shows in an interactive view, and a tool only that view calls. */
@AppResource({
  uri: 'ui://weather/dashboard',
  name: 'dashboard',
  title: 'Weather dashboard',
  html: DASHBOARD, // or file: '../dist/ui/dashboard.html', relative to this module
  csp: { connectDomains: ['https://api.weather.example'], resourceDomains: ['https://*.cdn.example.com'] },
  prefersBorder: true,
})
@Server({ name: 'weather', version: '1.0.0' })
export class WeatherApp extends McpServer {
  @Tool({ description: 'The forecast for a city', ui: 'ui://weather/dashboard' })
  forecast({ city }: CityInput) {
    // Every client gets this text; a host that renders views also shows the dashboard.
    return `Sunny in ${city}, 21 °C`;
  }

  @Tool({ description: 'Refreshes the dashboard', ui: { resourceUri: 'ui://weather/dashboard', visibility: ['app'] } })
  refresh({ city }: CityInput) {
    return { content: [{ type: 'text' as const, text: `Refreshed ${city}` }] };
  }
}
