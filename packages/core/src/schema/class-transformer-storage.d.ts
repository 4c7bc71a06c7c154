// class-transformer keeps @Type metadata in a store that it only exports from this internal
// path, which ships without typings. Only the piece the schema generator reads is declared.
declare module 'class-transformer/cjs/storage' {
  export const defaultMetadataStorage: {
    findTypeMetadata(target: Function, propertyName: string): { typeFunction: (options?: unknown) => Function } | undefined;
  };
}
