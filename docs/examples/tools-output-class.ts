import 'reflect-metadata';
import { Field, Server, Tool } from '@mcpx/core';
import { IsNumber, IsString } from 'class-validator';

export class WeatherInput {
  @Field({ description: 'City name' })
  @IsString()
  city!: string;
}

/** The output class: listed as the tool's outputSchema, and the result is checked against it. */
export class Weather {
  @Field({ description: 'Temperature in °C' })
  @IsNumber()
  temperature!: number;

  @Field({ description: 'Short description, e.g. "light rain"' })
  @IsString()
  conditions!: string;
}

@Server({ name: 'weather', version: '1.0.0' })
export class WeatherServer {
  @Tool({ description: 'Current weather for a city', output: Weather })
  weather(input: WeatherInput): Weather {
    // Return an instance or a plain object: it becomes structuredContent, plus a JSON text copy.
    return { temperature: input.city === 'Oslo' ? 4 : 21, conditions: 'clear' };
  }
}
