import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderRoute } from '../../testing/render';

describe('/login', () => {
  it('shows the e-mail and password fields, the Login button and the links to signup and recover', async () => {
    renderRoute('/login');

    expect(await screen.findByLabelText('Email')).toHaveAttribute('type', 'email');
    expect(screen.getByLabelText('Password')).toHaveAttribute('type', 'password');
    expect(screen.getByRole('button', { name: 'Login' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Sign up' })).toHaveAttribute('href', '/signup');
    expect(screen.getByRole('link', { name: 'Forgot password?' })).toHaveAttribute('href', '/recover');
    expect(screen.queryByText('Failure')).not.toBeInTheDocument();
  });

  it('says which fields are required when submitted empty', async () => {
    const { user } = renderRoute('/login');

    await user.click(await screen.findByRole('button', { name: 'Login' }));

    expect(screen.getByLabelText('Email')).toHaveAccessibleDescription('This field is required');
    expect(screen.getByLabelText('Password')).toHaveAccessibleDescription('This field is required');
  });

  it('counts lengths after trimming', async () => {
    const { user } = renderRoute('/login');

    await user.type(await screen.findByLabelText('Email'), '  ab  ');
    await user.type(screen.getByLabelText('Password'), 'x'.repeat(101));
    await user.click(screen.getByRole('button', { name: 'Login' }));

    expect(screen.getByText('Minimum length is 3')).toBeInTheDocument();
    expect(screen.getByText('Maximum length is 100')).toBeInTheDocument();
  });
});
