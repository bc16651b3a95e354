export * from './profile.js';
export * from './card.js';
export * from './config.js';
export * from './harness.js';
export * from './models.js';
