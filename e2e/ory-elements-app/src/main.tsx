import '@ory/elements-react/theme/styles.css';
import { createRoot } from 'react-dom/client';
import { loadConfig } from './config';
import { type FlowKind, FlowPage } from './flow-page';
import { HomePage } from './home-page';

const flowKinds: FlowKind[] = ['login', 'registration', 'verification', 'recovery', 'settings'];

const config = await loadConfig();
const path = window.location.pathname.replace(/^\/+|\/+$/g, '');
const kind = flowKinds.find((candidate) => candidate === path);
const root = document.getElementById('root');
if (root) createRoot(root).render(kind ? <FlowPage kind={kind} config={config} /> : <HomePage config={config} />);
