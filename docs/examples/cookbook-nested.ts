import 'reflect-metadata';
import { Field, Server, Tool } from '@mcpx/core';
import { Type } from 'class-transformer';
import { ArrayMinSize, IsInt, IsOptional, IsString, Matches, Min, ValidateNested } from 'class-validator';

export class Address {
  @IsString() street!: string;
  @IsString() city!: string;
  @IsOptional() @Matches(/^\d{5}$/) zip?: string;
}

export class LineItem {
  @IsString() sku!: string;
  @IsInt() @Min(1) quantity!: number;
}

export class OrderInput {
  // One nested object: @ValidateNested() checks it, @Type() makes it an Address.
  @Field({ description: 'Where to ship' })
  @ValidateNested()
  @Type(() => Address)
  shipTo!: Address;

  // An array of objects: TypeScript does not reflect the element type, so @Type() is required.
  @ValidateNested({ each: true })
  @Type(() => LineItem)
  @ArrayMinSize(1)
  items!: LineItem[];
}

@Server({ name: 'shop', version: '1.0.0' })
export class ShopServer {
  @Tool({ description: 'Places an order' })
  place(input: OrderInput) {
    const count = input.items.reduce((sum, item) => sum + item.quantity, 0);
    return `${count} items to ${input.shipTo.city}`;
  }
}
